import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Csrf } from '../views/layout.js';
import { publicPage } from '../views/render.js';

/**
 * An error page. `back`: where the user came from (a same-origin Referer, src/dashboard/http/local-redirect.ts),
 * linked first, so a refused action is never a dead end.
 */
export function errorPage(c: Context, status: ContentfulStatusCode, title: string, message: string, back?: string) {
  return publicPage(
    c,
    title,
    <section class="card narrow">
      <h1>{title}</h1>
      <p>{message}</p>
      <p class="error-links">
        {back ? (
          <>
            <a href={back}>Back to where you were</a>
            {' · '}
          </>
        ) : null}
        <a href="/">Back to the dashboard</a>
      </p>
    </section>,
    status,
  );
}

export const notFoundPage = (c: Context) => errorPage(c, 404, 'Page not found', 'There is nothing at this address, or you cannot see it.');

/**
 * A sensitive action without a sign-in in the last 30 minutes: the same form
 * again, with the password, posted to the same address.
 */
export function reauthPage(c: Context, fields: Record<string, string>, csrf: string, hasPassword: boolean, wrong: boolean) {
  const action = new URL(c.req.url).pathname;
  return publicPage(
    c,
    'Confirm it is you',
    <section class="card narrow">
      <h1>Confirm it is you</h1>
      <p>This action needs a sign-in within the last 30 minutes.</p>
      {hasPassword ? (
        <form method="post" action={action}>
          <Csrf token={csrf} />
          {Object.entries(fields).map(([k, v]) => (
            <input type="hidden" name={k} value={v} />
          ))}
          <div class={`field${wrong ? ' has-error' : ''}`}>
            <label for="f-confirm">Your password</label>
            <input id="f-confirm" name="confirm_password" type="password" autocomplete="current-password" required aria-invalid={wrong ? 'true' : undefined} aria-describedby={wrong ? 'f-confirm-error' : undefined} />
            {wrong ? (
              <p class="error" id="f-confirm-error">
                That password is not right.
              </p>
            ) : null}
          </div>
          <button type="submit" class="button primary">
            Confirm and continue
          </button>
        </form>
      ) : (
        <form method="post" action="/sign-in/again">
          <Csrf token={csrf} />
          <p>You have no password: sign in again with a fresh link, then repeat the action.</p>
          <button type="submit" class="button primary">
            Sign out and get a fresh link
          </button>
        </form>
      )}
    </section>,
    403,
  );
}
