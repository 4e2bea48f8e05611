import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../domain/auth/sessions.js';
import type { InvitationRecord } from '../../domain/auth/invitations.js';
import type { NotifyLevel } from '../../domain/notification-preferences.js';
import type { DashEnv } from '../http/env.js';
import { Card, Field, PostForm } from '../views/components.js';
import { PendingInvitations } from './invitations.js';
import { PushDevicesSection, type PushSettings } from '../views/push-devices.js';
import { page } from '../views/render.js';
import { QuietHoursSection, type QuietHoursView } from '../views/quiet-hours.js';

const DAY = 86_400_000;

export function profilePage(
  c: Context<DashEnv>,
  o: {
    hasPassword: boolean;
    /** Invitations to the viewer's own address, to accept or decline. */
    invitations: InvitationRecord[];
    passwordError?: string;
    emailError?: string;
    nameError?: string;
    emailValue?: string;
    levels: { channelId: string; name: string; level: NotifyLevel; isDefault: boolean }[];
    push: PushSettings;
    /** Whether this server sends e-mail: without it, the levels below would do nothing. */
    mailEnabled: boolean;
    quiet: QuietHoursView;
    /** OpenID Connect, when configured: whether this account is linked, and the link that starts linking. */
    sso?: { label: string; linked: boolean; linkUrl: string };
  },
  status: ContentfulStatusCode = 200,
) {
  const v = c.get('viewer');
  const csrf = c.get('csrfToken');
  const err = o.passwordError;
  return page(
    c,
    'Profile',
    'profile',
    <>
      <h1>Profile</h1>
      <PendingInvitations invitations={o.invitations} csrf={csrf} />
      <section class="card">
        <h2>You</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{v.name}</dd>
          <dt>E-mail</dt>
          <dd>
            {v.email}
            {v.emailVerified ? null : <span class="muted"> (not verified: sign-in links and invitations do not reach it)</span>}
          </dd>
        </dl>
        <PostForm action="/profile/name" csrf={csrf} class="inline-form" submit="Save name">
          <Field name="name" label="Your name" value={v.name} error={o.nameError} autocomplete="name" maxlength={100} required />
        </PostForm>
        <PostForm action="/profile/email" csrf={csrf} class="inline-form" submit="Change e-mail">
          <Field name="email" label="New e-mail address" type="email" value={o.emailValue} error={o.emailError} autocomplete="email" required />
        </PostForm>
      </section>
      <Card id="pw-title" title={o.hasPassword ? 'Change your password' : 'Set a password'}>
        <p class="hint">Optional: without one you sign in with e-mailed links.</p>
        <PostForm action="/profile/password" csrf={csrf} class="stack" button="primary" submit="Save password">
          <input type="text" name="username" autocomplete="username" value={v.email} hidden />
          <div class={`field${err ? ' has-error' : ''}`}>
            <label for="f-new-password">New password</label>
            <input id="f-new-password" name="new_password" type="password" autocomplete="new-password" minlength={MIN_PASSWORD_LENGTH} required aria-describedby="f-new-password-hint" />
            <p class="hint" id="f-new-password-hint">
              At least {MIN_PASSWORD_LENGTH} characters. A passphrase of a few words is easy to type and hard to guess.
            </p>
          </div>
          <div class={`field${err ? ' has-error' : ''}`}>
            <label for="f-repeat-password">Repeat the new password</label>
            <input id="f-repeat-password" name="repeat_password" type="password" autocomplete="new-password" required aria-invalid={err ? 'true' : undefined} aria-describedby={err ? 'f-password-error' : undefined} />
            {err ? (
              <p class="error" id="f-password-error">
                {err}
              </p>
            ) : null}
          </div>
        </PostForm>
      </Card>
      <Card id="notify-title" title="E-mail notifications">
        {!o.mailEnabled ? (
          <p>
            <strong>E-mail is off on this server</strong>, so no alert is e-mailed. An operator turns it on by setting <code>SMTP_URL</code> (and <code>MAIL_FROM</code>)
            and restarting. Browser notifications and push below still work.
          </p>
        ) : o.levels.length === 0 ? (
          <p class="muted">You see no channels in this workspace.</p>
        ) : (
          <ul class="plain">
            {o.levels.map((l) => (
              <li class="row">
                <a href={`/channels/${l.channelId}`}>{l.name}</a>
                <span>
                  {l.level}
                  {l.isDefault ? <span class="muted"> (default)</span> : null}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <QuietHoursSection quiet={o.quiet} csrf={csrf} mailEnabled={o.mailEnabled} />
      <PushDevicesSection push={o.push} csrf={csrf} />
      {o.sso ? (
        <Card id="sso-title" title="Single sign-on">
          {o.sso.linked ? (
            <p>Your account is linked to {o.sso.label}: you can sign in with it.</p>
          ) : (
            <p>
              <a class="button" href={o.sso.linkUrl}>
                Link your {o.sso.label} account
              </a>
            </p>
          )}
        </Card>
      ) : null}
      <Card id="sessions-title" title="Sessions">
        <p>
          A session ends after {SESSION_IDLE_MS / DAY} days without use, and {SESSION_ABSOLUTE_MS / DAY} days after sign-in in any case.
        </p>
        <PostForm action="/sign-out/everywhere" csrf={csrf} button="danger" submit="Sign out everywhere" />
      </Card>
    </>,
    status,
  );
}
