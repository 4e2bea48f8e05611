import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ROLES, type Role } from '../../domain/accounts.js';
import type { AuditEntry } from '../../domain/auth/audit.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { UserRef } from '../ports.js';
import { Card, CopyBox, DataTable, Field, Notice, PostForm, RowAction, SelectField, TimeCell } from '../views/components.js';
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
      <DataTable columns={['Name', 'E-mail', 'Role']} actions={manager}>
        {o.members.map((m) => (
          <tr>
            <th scope="row">
              {m.name}
              {m.id === me ? <span class="muted"> (you)</span> : null}
            </th>
            <td data-label="E-mail">{m.email}</td>
            <td data-label="Role">
              {manager ? (
                <PostForm action={`/members/${m.id}/role`} csrf={csrf} class="row-form" button="small" label={`Change role of ${m.name}`} submit="Change">
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
                </PostForm>
              ) : (
                m.role
              )}
            </td>
            {manager ? (
              <RowAction action={`/members/${m.id}/remove`} csrf={csrf} label={`Remove ${m.name} from the workspace`}>
                Remove
              </RowAction>
            ) : null}
          </tr>
        ))}
      </DataTable>
      {manager ? (
        <Card id="invite-title" title="Invite someone">
          <PostForm
            action="/members/invite"
            csrf={csrf}
            class="grid-form"
            button="primary"
            submit={o.mailEnabled ? 'Invite and e-mail a link' : 'Invite and show a link'}
          >
            <Field name="email" label="E-mail" type="email" value={o.values?.email} error={e.email} required />
            <SelectField name="role" label="Role" options={ROLES.map((r) => ({ value: r, label: r, selected: r === (o.values?.role ?? 'member') }))} error={e.role} />
          </PostForm>
        </Card>
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
        <DataTable columns={['When', 'Who', 'What', 'From']}>
          {entries.map((a) => (
            <tr>
              <TimeCell label="When" iso={a.at} />
              <td data-label="Who">{a.actor.email ?? 'system'}</td>
              <td data-label="What">
                <code>{a.action}</code> {a.target}
              </td>
              <td data-label="From">{a.from ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>,
  );
}
