import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../domain/auth/sessions.js';
import type { NotifyLevel } from '../../notify/preferences.js';
import type { DashEnv } from '../http/env.js';
import { Field, Notice } from '../views/components.js';
import { Csrf } from '../views/layout.js';
import { PushDevicesSection, type PushSettings } from '../views/push-devices.js';
import { page } from '../views/render.js';

const DAY = 86_400_000;

export function profilePage(
  c: Context<DashEnv>,
  o: {
    hasPassword: boolean;
    passwordError?: string;
    emailError?: string;
    nameError?: string;
    emailValue?: string;
    emailSentTo?: string;
    levels: { channelId: string; name: string; level: NotifyLevel; isDefault: boolean }[];
    push: PushSettings;
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
      {c.req.query('password') ? <Notice>Password saved.</Notice> : null}
      {c.req.query('email') ? <Notice>E-mail address changed.</Notice> : null}
      {c.req.query('name') ? <Notice>Name saved.</Notice> : null}
      {c.req.query('invited') ? (
        <Notice kind="warn">Welcome to {c.get('workspace')?.name ?? 'Alertbridge'}! Tell your colleagues who you are, and set a password if you like (otherwise you sign in with e-mailed links).</Notice>
      ) : null}
      {c.req.query('welcome') ? <Notice kind="warn">Welcome! Set your real e-mail address first: sign-in links and notifications go there.</Notice> : null}
      {o.emailSentTo ? <Notice>We sent a confirmation link to {o.emailSentTo}. Your address changes when you use it (within 15 minutes).</Notice> : null}
      <section class="card">
        <h2>You</h2>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{v.name}</dd>
          <dt>E-mail</dt>
          <dd>{v.email}</dd>
        </dl>
        <form method="post" action="/profile/name" class="inline-form">
          <Csrf token={csrf} />
          <Field name="name" label="Your name" value={v.name} error={o.nameError} autocomplete="name" maxlength={100} required />
          <button type="submit" class="button">
            Save name
          </button>
        </form>
        <form method="post" action="/profile/email" class="inline-form">
          <Csrf token={csrf} />
          <Field name="email" label="New e-mail address" type="email" value={o.emailValue} error={o.emailError} autocomplete="email" required />
          <button type="submit" class="button">
            Change e-mail
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="pw-title">
        <h2 id="pw-title">{o.hasPassword ? 'Change your password' : 'Set a password'}</h2>
        <p class="hint">Optional: without one you sign in with e-mailed links.</p>
        <form method="post" action="/profile/password" class="stack">
          <Csrf token={csrf} />
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
          <button type="submit" class="button primary">
            Save password
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="notify-title">
        <h2 id="notify-title">E-mail notifications</h2>
        {o.levels.length === 0 ? (
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
      </section>
      <PushDevicesSection push={o.push} csrf={csrf} removed={Boolean(c.req.query('push-removed'))} />
      <section class="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Sessions</h2>
        <p>
          A session ends after {SESSION_IDLE_MS / DAY} days without use, and {SESSION_ABSOLUTE_MS / DAY} days after sign-in in any case.
        </p>
        <form method="post" action="/sign-out/everywhere">
          <Csrf token={csrf} />
          <button type="submit" class="button danger">
            Sign out everywhere
          </button>
        </form>
      </section>
    </>,
    status,
  );
}
