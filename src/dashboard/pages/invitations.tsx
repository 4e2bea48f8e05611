import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import type { InvitationRecord } from '../../domain/auth/invitations.js';
import { Card, Field, PostForm, Time } from '../views/components.js';
import { publicPage } from '../views/render.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** An unknown, used, withdrawn, declined or expired invitation link. */
export function invitationGonePage(c: Context) {
  return publicPage(
    c,
    'Invitation no longer valid',
    <section class="card narrow">
      <h1>This invitation no longer works</h1>
      <p>It was already used, withdrawn or re-issued, or it has expired. Ask the person who invited you for a new one.</p>
      <p>
        <a class="button" href="/sign-in">
          Go to sign-in
        </a>
      </p>
    </section>,
    410,
  );
}

/** The link opened while signed in as someone else: it is for the account at its address only. */
export function invitationForAnotherAccountPage(c: Context) {
  return publicPage(
    c,
    'Invitation for another account',
    <section class="card narrow">
      <h1>This invitation is for another account</h1>
      <p>You are signed in with a different account. Sign out, then sign in as that account to accept it: it waits under Pending invitations on its profile.</p>
    </section>,
  );
}

/** The address has no account yet: accepting creates it (a name, and a password if they like). */
export function acceptInvitationPage(
  c: Context,
  o: { secret: string; invitation: InvitationRecord; mailEnabled: boolean; values?: Record<string, string>; errors?: Record<string, string | undefined> },
  status: ContentfulStatusCode = 200,
) {
  const inv = o.invitation;
  const e = o.errors ?? {};
  const pwError = e.password;
  return publicPage(
    c,
    `Join ${inv.workspaceName}`,
    <section class="card narrow">
      <h1>Join {inv.workspaceName}</h1>
      <p>
        {inv.inviterName ?? 'A member'} invited <strong>{inv.email}</strong> to {inv.workspaceName} on Alertbridge as {inv.role}. Accept to create your account. The
        invitation works until <Time iso={iso(inv.expiresAt)} />.
      </p>
      <form method="post" action="/invite/accept" class="stack">
        <input type="hidden" name="t" value={o.secret} />
        <input type="text" name="username" autocomplete="username" value={inv.email} hidden />
        <Field name="name" label="Your name" value={o.values?.name ?? inv.email.split('@')[0]} error={e.name} autocomplete="name" maxlength={100} required />
        <div class={`field${pwError ? ' has-error' : ''}`}>
          <label for="f-password">Password (optional)</label>
          <input id="f-password" name="password" type="password" autocomplete="new-password" minlength={MIN_PASSWORD_LENGTH} aria-describedby="f-password-hint" />
          <p class="hint" id="f-password-hint">
            At least {MIN_PASSWORD_LENGTH} characters.{' '}
            {o.mailEnabled ? 'Without one you sign in with e-mailed links.' : 'This server sends no e-mail: without a password, only an operator can give you a sign-in link.'}
          </p>
        </div>
        <div class={`field${pwError ? ' has-error' : ''}`}>
          <label for="f-repeat-password">Repeat the password</label>
          <input id="f-repeat-password" name="repeat_password" type="password" autocomplete="new-password" aria-invalid={pwError ? 'true' : undefined} aria-describedby={pwError ? 'f-password-error' : undefined} />
          {pwError ? (
            <p class="error" id="f-password-error">
              {pwError}
            </p>
          ) : null}
        </div>
        <button type="submit" class="button primary">
          Accept and create your account
        </button>
      </form>
    </section>,
    status,
  );
}

/** The signed-in user's own pending invitations (their profile): accept or decline each. */
export function PendingInvitations(props: { invitations: InvitationRecord[]; csrf: string | undefined }) {
  if (props.invitations.length === 0) return null;
  return (
    <Card id="invitations" title="Pending invitations">
      <ul class="plain">
        {props.invitations.map((i) => (
          <li class="row">
            <span>
              <strong>{i.workspaceName}</strong> as {i.role}, from {i.inviterName ?? 'a former member'} (until <Time iso={iso(i.expiresAt)} />)
            </span>
            <span class="row-actions">
              <PostForm action={`/invitations/${i.id}/accept`} csrf={props.csrf} button="primary small" label={`Accept the invitation to ${i.workspaceName}`} submit="Accept" />
              <PostForm action={`/invitations/${i.id}/decline`} csrf={props.csrf} button="small" label={`Decline the invitation to ${i.workspaceName}`} submit="Decline" />
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
