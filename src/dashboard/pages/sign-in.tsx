import type { Context } from 'hono';
import { Field, Notice } from '../views/components.js';
import { publicPage } from '../views/render.js';
import { SsoButton } from './sso.js';

export function signInPage(
  c: Context,
  o: { next: string; email?: string; error?: string; mailEnabled: boolean; invitation?: boolean; notice?: { text: string; tone: 'ok' | 'warn' }; sso?: string; localForms?: boolean },
) {
  return publicPage(
    c,
    'Sign in',
    <section class="card narrow">
      <h1>Sign in to Alertbridge</h1>
      {o.notice ? <Notice kind={o.notice.tone}>{o.notice.text}</Notice> : null}
      {o.invitation ? (
        <Notice kind="warn">This invitation is for an account that already exists. Sign in as that account to accept it: it waits under Pending invitations on your profile.</Notice>
      ) : null}
      {o.sso ? <SsoButton label={o.sso} next={o.next} /> : null}
      {o.localForms === false ? null : (
      <>
      <form method="post" action="/sign-in" class="stack">
        <input type="hidden" name="next" value={o.next} />
        <Field name="email" label="E-mail" type="email" value={o.email} autocomplete="username" required />
        <Field name="password" label="Password" type="password" autocomplete="current-password" error={o.error} required />
        <button type="submit" class="button primary">
          Sign in
        </button>
      </form>
      {o.mailEnabled ? (
        <form method="post" action="/sign-in/link" class="stack secondary-form">
          <h2>No password?</h2>
          <Field name="email" label="E-mail for a sign-in link" type="email" value={o.email} autocomplete="username" required />
          <button type="submit" class="button">
            E-mail me a sign-in link
          </button>
        </form>
      ) : (
        <p class="hint">
          No password yet? Ask an operator for a sign-in link (<code>npm run --silent admin -- login-link --email you@example.com</code>).
        </p>
      )}
      </>
      )}
    </section>,
    o.error ? 401 : 200,
  );
}

export function linkPage(c: Context, secret: string, who: { email: string; name: string } | undefined) {
  if (!who) {
    return publicPage(
      c,
      'Link expired',
      <section class="card narrow">
        <h1>This sign-in link no longer works</h1>
        <p>Links work once, for 15 minutes. Ask for a new one on the sign-in page.</p>
        <p>
          <a class="button primary" href="/sign-in">
            Go to sign-in
          </a>
        </p>
      </section>,
      410,
    );
  }
  // A button, not an automatic sign-in: mail scanners open links and must not use them up.
  return publicPage(
    c,
    'Sign in',
    <section class="card narrow">
      <h1>Sign in as {who.name}</h1>
      <p>
        This signs you in as <strong>{who.email}</strong> in this browser.
      </p>
      <form method="post" action="/auth/link">
        <input type="hidden" name="t" value={secret} />
        <button type="submit" class="button primary">
          Sign in as {who.email}
        </button>
      </form>
    </section>,
  );
}
