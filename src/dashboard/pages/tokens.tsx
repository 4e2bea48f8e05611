import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { TokenRow } from '../ports.js';
import { Card, CopyBox, DataTable, Field, Notice, PostForm, RowAction, TimeCell } from '../views/components.js';
import { page } from '../views/render.js';
import { flashOf } from '../http/flash.js';

export function tokensPage(
  c: Context<DashEnv>,
  o: { tokens: (TokenRow & { ownerName: string })[]; publicUrl: string; nameError?: string; name?: string },
  status: ContentfulStatusCode = 200,
) {
  const csrf = c.get('csrfToken');
  const manager = isManager(c.get('workspace')?.role);
  const live = o.tokens.filter((t) => !t.revokedAt);
  // The new token comes through the flash of the POST that made it: shown on this one page load only.
  const created = flashOf(c)?.token;
  const spent = !created && c.req.query('created') !== undefined;
  return page(
    c,
    'API tokens',
    'tokens',
    <>
      <h1>API tokens</h1>
      <p class="lead">Tokens let scripts read alerts through the API as you. {manager ? 'As an owner or admin you see every member’s tokens.' : ''}</p>
      {spent ? <Notice kind="warn">A new token is shown only once, and this page has been shown already. If you did not copy it, revoke it and create another.</Notice> : null}
      {created ? (
        <section class="card created" aria-labelledby="created-title">
          <h2 id="created-title">Token “{created.name}” created</h2>
          <Notice kind="warn">Copy it now: it is shown only this once.</Notice>
          <CopyBox id="new-token" label="Token" value={created.token} copyLabel="Copy token" />
          <CopyBox
            id="new-token-curl"
            label="Try it with curl"
            value={`curl -H "Authorization: Bearer ${created.token}" ${o.publicUrl}/api/channels`}
            copyLabel="Copy curl command"
            multiline
          />
        </section>
      ) : null}
      <Card id="create-title" title="Create a token">
        <PostForm action="/tokens" csrf={csrf} class="inline-form" button="primary" submit="Create token">
          <Field name="name" label="Token name" value={o.name} error={o.nameError} hint="Where it will be used, e.g. “CI deploy script”." maxlength={100} required />
          <div class="field checkbox">
            <input type="checkbox" id="f-read-only" name="read-only" />
            <label for="f-read-only">Read only: may read alerts and mark them read, but not change their status or delete them</label>
          </div>
        </PostForm>
      </Card>
      <section aria-labelledby="list-title">
        <h2 id="list-title">Active tokens</h2>
        {live.length === 0 ? (
          <p class="muted">No active tokens.</p>
        ) : (
          <DataTable columns={['Name', manager ? 'Member' : null, 'Access', 'Last four', 'Created', 'Last used']} actions>
            {live.map((t) => (
              <tr>
                <th scope="row">{t.name}</th>
                {manager ? <td data-label="Member">{t.ownerName}</td> : null}
                <td data-label="Access">{t.readOnly ? 'Read only' : 'Full'}</td>
                <td data-label="Last four">
                  <code>{t.hint}</code>
                </td>
                <TimeCell label="Created" iso={t.createdAt} />
                <TimeCell label="Last used" iso={t.lastUsedAt} />
                <RowAction
                  action={`/tokens/${t.id}/revoke`}
                  csrf={csrf}
                  label={`Revoke token ${t.name}`}
                  confirm={{ question: `Revoke token “${t.name}”?`, detail: 'Scripts using it stop working at once. This cannot be undone.', action: 'Revoke token' }}
                >
                  Revoke
                </RowAction>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>,
    status,
  );
}
