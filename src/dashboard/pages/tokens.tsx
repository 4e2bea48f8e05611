import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { TokenRow } from '../ports.js';
import { ActionsColumn, CopyBox, Field, Notice, Time } from '../views/components.js';
import { Csrf } from '../views/layout.js';
import { page } from '../views/render.js';

export function tokensPage(
  c: Context<DashEnv>,
  o: { tokens: (TokenRow & { ownerName: string })[]; publicUrl: string; created?: { name: string; token: string }; nameError?: string; name?: string },
  status: ContentfulStatusCode = 200,
) {
  const csrf = c.get('csrfToken');
  const manager = isManager(c.get('workspace')?.role);
  const live = o.tokens.filter((t) => !t.revokedAt);
  return page(
    c,
    'API tokens',
    'tokens',
    <>
      <h1>API tokens</h1>
      <p class="lead">Tokens let scripts read alerts through the API as you. {manager ? 'As an owner or admin you see every member’s tokens.' : ''}</p>
      {c.req.query('revoked') ? <Notice>Token revoked. The API refuses it from now on.</Notice> : null}
      {o.created ? (
        <section class="card created" aria-labelledby="created-title">
          <h2 id="created-title">Token “{o.created.name}” created</h2>
          <Notice kind="warn">Copy it now: it is shown only this once.</Notice>
          <CopyBox id="new-token" label="Token" value={o.created.token} copyLabel="Copy token" />
          <CopyBox
            id="new-token-curl"
            label="Try it with curl"
            value={`curl -H "Authorization: Bearer ${o.created.token}" ${o.publicUrl}/api/channels`}
            copyLabel="Copy curl command"
            multiline
          />
        </section>
      ) : null}
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a token</h2>
        <form method="post" action="/tokens" class="inline-form">
          <Csrf token={csrf} />
          <Field name="name" label="Token name" value={o.name} error={o.nameError} hint="Where it will be used, e.g. “CI deploy script”." maxlength={100} required />
          <button type="submit" class="button primary">
            Create token
          </button>
        </form>
      </section>
      <section aria-labelledby="list-title">
        <h2 id="list-title">Active tokens</h2>
        {live.length === 0 ? (
          <p class="muted">No active tokens.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  {manager ? <th scope="col">Member</th> : null}
                  <th scope="col">Last four</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <ActionsColumn />
                </tr>
              </thead>
              <tbody>
                {live.map((t) => (
                  <tr>
                    <th scope="row">{t.name}</th>
                    {manager ? <td data-label="Member">{t.ownerName}</td> : null}
                    <td data-label="Last four">
                      <code>{t.hint}</code>
                    </td>
                    <td data-label="Created">
                      <Time iso={t.createdAt} />
                    </td>
                    <td data-label="Last used">
                      <Time iso={t.lastUsedAt} />
                    </td>
                    <td class="actions">
                      <form method="post" action={`/tokens/${t.id}/revoke`}>
                        <Csrf token={csrf} />
                        <button type="submit" class="button danger small" aria-label={`Revoke token ${t.name}`}>
                          Revoke
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>,
    status,
  );
}
