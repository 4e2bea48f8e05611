import type { Context } from 'hono';
import { EMAIL_CONFIRMATION_TTL_MS } from '../../domain/auth/sign-in-links.js';
import type { DashEnv } from '../http/env.js';
import { PostForm } from '../views/components.js';
import { page } from '../views/render.js';

/**
 * The page an address confirmation link opens (signed in as the person who asked for it). A button,
 * not an automatic change: mail scanners open links and must not use them up.
 */
export function emailConfirmPage(c: Context<DashEnv>, secret: string, newEmail: string | undefined) {
  if (!newEmail) {
    return page(
      c,
      'Link expired',
      'profile',
      <section class="card narrow">
        <h1>This confirmation link no longer works</h1>
        <p>
          A confirmation link works once, for {EMAIL_CONFIRMATION_TTL_MS / 3_600_000} hours, and only for the account that asked for it. Ask for a new one on your
          profile.
        </p>
        <p>
          <a class="button primary" href="/profile">
            Go to your profile
          </a>
        </p>
      </section>,
      410,
    );
  }
  return page(
    c,
    'Confirm your e-mail address',
    'profile',
    <section class="card narrow">
      <h1>Confirm your e-mail address</h1>
      <p>
        This makes <strong>{newEmail}</strong> the address of {c.get('viewer').name}: sign-in links and notifications go there from now on.
      </p>
      <PostForm action="/profile/email/confirm" csrf={c.get('csrfToken')} button="primary" submit={`Use ${newEmail}`}>
        <input type="hidden" name="t" value={secret} />
      </PostForm>
    </section>,
  );
}
