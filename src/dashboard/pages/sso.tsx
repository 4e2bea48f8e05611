import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Child } from 'hono/jsx';
import { publicPage } from '../views/render.js';

/** The "Sign in with ‹label›" button, above the other ways in. */
export function SsoButton(props: { label: string; next: string }) {
  return (
    <p class="stack sso-form">
      <a class="button primary" href={`/auth/oidc/start?next=${encodeURIComponent(props.next)}`}>
        Sign in with {props.label}
      </a>
    </p>
  );
}

function ssoPage(c: Context, status: ContentfulStatusCode, title: string, body: Child) {
  return publicPage(
    c,
    title,
    <section class="card narrow">
      <h1>{title}</h1>
      {body}
      <p>
        <a class="button" href="/sign-in">
          Back to sign-in
        </a>
      </p>
    </section>,
    status,
  );
}

/** An account holds the address, and nothing allowed linking it at this sign-in. */
export function linkNeededPage(c: Context, label: string) {
  return ssoPage(
    c,
    409,
    'Link your account first',
    <>
      <p>An account here already uses the e-mail address your {label} account gave, so it was not signed in or changed.</p>
      <p>
        To use {label} from now on, sign in as that account with its password or a sign-in link and link {label} to it, or ask the operator: when
        both {label} and this service have verified the address, automatic linking can be turned on.
      </p>
    </>,
  );
}

export function refusedPage(c: Context, reason: 'no-email' | 'not-allowed', label: string) {
  return ssoPage(
    c,
    403,
    'No access',
    reason === 'no-email' ? (
      <p>Your {label} account gave no e-mail address, so no account could be found or made for it. Ask your administrator to release the e-mail claim.</p>
    ) : (
      <p>
        Your {label} account has no account here, and neither its e-mail domain nor its groups give it access. Ask an owner of the workspace for an
        invitation.
      </p>
    ),
  );
}

/** The callback could not be trusted: an old or foreign state, a provider error, a token that failed validation. */
export function failedPage(c: Context, label: string, why: 'expired' | 'provider' | 'invalid' | 'unavailable') {
  const text = {
    expired: 'This sign-in took too long or was started in another browser. Start again from the sign-in page.',
    provider: `${label} did not sign you in. Start again from the sign-in page.`,
    invalid: `The answer from ${label} could not be verified, so nobody was signed in. Start again from the sign-in page.`,
    unavailable: `${label} cannot be reached just now. Try again in a moment; sessions already open keep working.`,
  }[why];
  return ssoPage(c, why === 'unavailable' ? 503 : 400, 'Sign-in did not complete', <p>{text}</p>);
}
