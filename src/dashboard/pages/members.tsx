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
import { flashOf } from '../http/flash.js';

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
  },
  status: ContentfulStatusCode = 200,
) {
  const ws = c.get('workspace');
  const manager = isManager(ws?.role);
  const csrf = c.get('csrfToken');
  const me = c.get('viewer').id;
  const e = o.errors ?? {};
  // An invitation link that was not e-mailed comes through the flash of the POST: shown once, here.
  const shown = flashOf(c)?.invitation;
  const spent = !shown && c.req.query('link') !== undefined;
  const owners = o.members.filter((m) => m.role === 'owner').length;
  return page(
    c,
    'Members',
    'members',
    <>
      <h1>Members</h1>
      {ws?.role === 'owner' ? (
        <p>
          <a href="/members/sso-groups">Single sign-on groups</a>: roles and private channels given by your identity provider’s groups.
        </p>
      ) : null}
      {spent ? <Notice kind="warn">An invitation link is shown only once, and this page has been shown already. Re-issue the invitation for a new link.</Notice> : null}
      {shown ? (
        <section class="card created">
          <Notice>
            {shown.mailFailed ? `The e-mail to ${shown.email} could not be sent. ` : ''}Send {shown.email} this invitation link. It works once, until{' '}
            <Time iso={new Date(shown.expiresAt).toISOString()} />; it never signs anyone in to an account that already exists. It is shown only this once.
          </Notice>
          <CopyBox id="invite-link" label="Invitation link" value={shown.url} copyLabel="Copy invitation link" />
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
                <RoleForm member={m} csrf={csrf} lastOwner={m.role === 'owner' && owners === 1} />
              ) : (
                m.role
              )}
            </td>
            {manager ? (
              m.role === 'owner' && owners === 1 ? (
                <td class="actions">
                  <button type="button" class="button danger small" disabled aria-label={`Remove ${m.name} from the workspace`} aria-describedby={`last-owner-${m.id}`}>
                    Remove
                  </button>
                </td>
              ) : (
                <RowAction
                  action={`/members/${m.id}/remove`}
                  csrf={csrf}
                  label={`Remove ${m.name} from the workspace`}
                  confirm={{ question: `Remove ${m.name} from the workspace?`, detail: `${m.email} loses access at once, and their API tokens stop working.`, action: 'Remove member' }}
                >
                  Remove
                </RowAction>
              )
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

/**
 * A member's role. The last owner's is fixed, with the reason next to it: a workspace without an
 * owner could not be administered (make someone else owner first).
 */
function RoleForm(props: { member: UserRef & { role: Role }; csrf: string | undefined; lastOwner: boolean }) {
  const m = props.member;
  return (
    <PostForm action={`/members/${m.id}/role`} csrf={props.csrf} class="row-form" button="small" label={`Change role of ${m.name}`} submit="Change" disabled={props.lastOwner}>
      <label for={`role-${m.id}`} class="visually-hidden">
        Role of {m.name}
      </label>
      <select id={`role-${m.id}`} name="role" disabled={props.lastOwner} aria-describedby={props.lastOwner ? `last-owner-${m.id}` : undefined}>
        {ROLES.map((r) => (
          <option value={r} selected={r === m.role}>
            {r}
          </option>
        ))}
      </select>
      {props.lastOwner ? (
        <span class="muted disabled-reason" id={`last-owner-${m.id}`}>
          The last owner: make someone else owner first.
        </span>
      ) : null}
    </PostForm>
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
              <PostForm
                action={`/members/invitations/${i.id}/reissue`}
                csrf={props.csrf}
                button="small"
                label={`Re-issue the invitation of ${i.email}`}
                submit="Re-issue"
                confirm={{ question: `Re-issue the invitation of ${i.email}?`, detail: 'A new link goes out; the current one stops working.', action: 'Re-issue' }}
              />
              <PostForm
                action={`/members/invitations/${i.id}/withdraw`}
                csrf={props.csrf}
                button="danger small"
                label={`Withdraw the invitation of ${i.email}`}
                submit="Withdraw"
                confirm={{ question: `Withdraw the invitation of ${i.email}?`, detail: 'Its link stops working. You can invite them again later.', action: 'Withdraw invitation' }}
              />
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
