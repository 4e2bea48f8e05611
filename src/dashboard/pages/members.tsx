import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ROLES, type Role } from '../../domain/accounts.js';
import type { AuditEntry } from '../../domain/auth/audit.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { UserRef } from '../ports.js';
import { ActionsColumn, CopyBox, Field, Notice, Time } from '../views/components.js';
import { Csrf } from '../views/layout.js';
import { page } from '../views/render.js';

export function membersPage(
  c: Context<DashEnv>,
  o: {
    members: (UserRef & { role: Role })[];
    mailEnabled: boolean;
    errors?: Record<string, string | undefined>;
    values?: Record<string, string>;
    invited?: { email: string; url?: string };
  },
  status: ContentfulStatusCode = 200,
) {
  const ws = c.get('workspace');
  const manager = isManager(ws?.role);
  const csrf = c.get('csrfToken');
  const me = c.get('viewer').id;
  const e = o.errors ?? {};
  return page(
    c,
    'Members',
    'members',
    <>
      <h1>Members</h1>
      {c.req.query('changed') ? <Notice>Role changed.</Notice> : null}
      {c.req.query('removed') ? <Notice>Member removed. Their tokens stop working at once.</Notice> : null}
      {o.invited ? (
        <section class="card created">
          <Notice>{o.invited.url ? `${o.invited.email} was added. Send them this one-time sign-in link (valid 15 minutes):` : `${o.invited.email} was added and e-mailed a sign-in link.`}</Notice>
          {o.invited.url ? <CopyBox id="invite-link" label="Sign-in link" value={o.invited.url} copyLabel="Copy sign-in link" /> : null}
        </section>
      ) : null}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              {manager ? (
                <ActionsColumn />
              ) : null}
            </tr>
          </thead>
          <tbody>
            {o.members.map((m) => (
              <tr>
                <th scope="row">
                  {m.name}
                  {m.id === me ? <span class="muted"> (you)</span> : null}
                </th>
                <td data-label="E-mail">{m.email}</td>
                <td data-label="Role">
                  {manager ? (
                    <form method="post" action={`/members/${m.id}/role`} class="row-form">
                      <Csrf token={csrf} />
                      <label for={`role-${m.id}`} class="visually-hidden">
                        Role of {m.name}
                      </label>
                      <select id={`role-${m.id}`} name="role">
                        {ROLES.map((r) => (
                          <option value={r} selected={r === m.role}>
                            {r}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="button small" aria-label={`Change role of ${m.name}`}>
                        Change
                      </button>
                    </form>
                  ) : (
                    m.role
                  )}
                </td>
                {manager ? (
                  <td class="actions">
                    <form method="post" action={`/members/${m.id}/remove`}>
                      <Csrf token={csrf} />
                      <button type="submit" class="button danger small" aria-label={`Remove ${m.name} from the workspace`}>
                        Remove
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {manager ? (
        <section class="card" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <form method="post" action="/members/invite" class="grid-form">
            <Csrf token={csrf} />
            <Field name="email" label="E-mail" type="email" value={o.values?.email} error={e.email} required />
            <div class="field">
              <label for="f-role">Role</label>
              <select id="f-role" name="role">
                {ROLES.map((r) => (
                  <option value={r} selected={r === (o.values?.role ?? 'member')}>
                    {r}
                  </option>
                ))}
              </select>
              {e.role ? <p class="error">{e.role}</p> : null}
            </div>
            <button type="submit" class="button primary">
              {o.mailEnabled ? 'Invite and e-mail a link' : 'Invite and show a link'}
            </button>
          </form>
        </section>
      ) : null}
    </>,
    status,
  );
}

export function auditPage(c: Context<DashEnv>, entries: AuditEntry[]) {
  return page(
    c,
    'Audit log',
    'audit',
    <>
      <h1>Audit log</h1>
      {entries.length === 0 ? (
        <p class="muted">Nothing recorded yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((a) => (
                <tr>
                  <td data-label="When">
                    <Time iso={a.at} />
                  </td>
                  <td data-label="Who">{a.actor.email ?? 'system'}</td>
                  <td data-label="What">
                    <code>{a.action}</code> {a.target}
                  </td>
                  <td data-label="From">{a.from ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>,
  );
}
