import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ROLES, type Role } from '../../domain/accounts.js';
import type { AuditEntry } from '../../domain/auth/audit.js';
import type { InvitationRecord } from '../../domain/auth/invitations.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { UserRef } from '../ports.js';
import { Card, CopyBox, DataTable, Field, Notice, PostForm, RowAction, SelectField, Time, TimeCell } from '../views/components.js';
import { page } from '../views/render.js';

export function membersPage(
  c: Context<DashEnv>,
  o: {
    members: (UserRef & { role: Role })[];
    /** Pending invitations (managers only; empty for members). */
    invitations: InvitationRecord[];
    /** The service clock's time, to tell expired invitations. */
    now: number;
    mailEnabled: boolean;
    errors?: Record<string, string | undefined>;
    values?: Record<string, string>;
    /** An invitation link that was not e-mailed: shown once, here. */
    shown?: { email: string; url: string; expiresAt: number };
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
      {c.req.query('invited') ? <Notice>Invitation e-mailed. They join when they accept it.</Notice> : null}
      {c.req.query('reissued') ? <Notice>Invitation re-issued and e-mailed. The earlier link no longer works.</Notice> : null}
      {c.req.query('withdrawn') ? <Notice>Invitation withdrawn. Its link no longer works.</Notice> : null}
      {o.shown ? (
        <section class="card created">
          <Notice>
            {o.mailEnabled ? `The e-mail to ${o.shown.email} could not be sent. ` : ''}Send {o.shown.email} this invitation link. It works once, until{' '}
            <Time iso={new Date(o.shown.expiresAt).toISOString()} />; it never signs anyone in to an account that already exists.
          </Notice>
          <CopyBox id="invite-link" label="Invitation link" value={o.shown.url} copyLabel="Copy invitation link" />
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
      {manager && o.invitations.length > 0 ? <PendingInvitationsTable invitations={o.invitations} now={o.now} csrf={csrf} /> : null}
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

/** An invitation's state for the list: its expiry, or that it has expired (re-issue it). */
function expiry(i: InvitationRecord, now: number) {
  return i.expiresAt <= now ? <strong>expired</strong> : <Time iso={new Date(i.expiresAt).toISOString()} />;
}

function PendingInvitationsTable(props: { invitations: InvitationRecord[]; now: number; csrf: string | undefined }) {
  const now = props.now;
  return (
    <Card id="invitations-title" title="Pending invitations">
      <DataTable columns={['E-mail', 'Role', 'Invited by', 'Sent', 'Expires']} actions>
        {props.invitations.map((i) => (
          <tr>
            <th scope="row">{i.email}</th>
            <td data-label="Role">{i.role}</td>
            <td data-label="Invited by">{i.inviterName ?? 'former member'}</td>
            <td data-label="Sent">
              <Time iso={new Date(i.createdAt).toISOString()} /> {i.sentByMail ? '(e-mailed)' : '(link shown)'}
            </td>
            <td data-label="Expires">{expiry(i, now)}</td>
            <td class="actions">
              <PostForm action={`/members/invitations/${i.id}/reissue`} csrf={props.csrf} button="small" label={`Re-issue the invitation of ${i.email}`} submit="Re-issue" />
              <PostForm action={`/members/invitations/${i.id}/withdraw`} csrf={props.csrf} button="danger small" label={`Withdraw the invitation of ${i.email}`} submit="Withdraw" />
            </td>
          </tr>
        ))}
      </DataTable>
    </Card>
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
