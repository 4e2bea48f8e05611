import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { BOOTSTRAP_PLACEHOLDER_EMAIL } from '../../bootstrap.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import { Csrf } from './layout.js';

/** Set (for a year) when the viewer dismisses the "add your e-mail address" banner on this browser. */
export const EMAIL_BANNER_COOKIE = 'ab_email_banner';

/**
 * The first-run owner signs in with the placeholder address (no BOOTSTRAP_OWNER_EMAIL): a banner on
 * the feed asks for a real one, dismissible, never a gate in front of the first alert.
 */
export function EmailBanner(props: { c: Context<DashEnv> }) {
  const c = props.c;
  if (c.get('viewer').email !== BOOTSTRAP_PLACEHOLDER_EMAIL || getCookie(c, EMAIL_BANNER_COOKIE) === 'dismissed') return null;
  return (
    <div class="notice warn banner" role="status">
      <span>
        <a href="/profile#f-email">Add your e-mail address</a> to get notifications and sign-in links.
      </span>
      <form method="post" action="/profile/email-banner/dismiss">
        <Csrf token={c.get('csrfToken')} />
        <button type="submit" class="button ghost small" aria-label="Dismiss the e-mail address banner">
          Dismiss
        </button>
      </form>
    </div>
  );
}

/** A channel's feed links to its settings (owners and admins change them; members see their e-mail level there). */
export function ChannelSettingsLink(props: { c: Context<DashEnv>; channelId: string | undefined; channelName?: string }) {
  if (!props.channelId) return null;
  return (
    <a class="button ghost small" href={`/channels/${props.channelId}`} aria-label={`Settings of ${props.channelName ?? 'this channel'}`}>
      {isManager(props.c.get('workspace')?.role) ? 'Channel settings' : 'Channel settings and e-mail'}
    </a>
  );
}
