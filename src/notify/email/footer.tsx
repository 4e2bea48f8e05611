import type { Child } from 'hono/jsx';
import type { NotifyLevel } from '../../domain/notification-preferences.js';
import type { ChannelInfo, EmailLinks } from './types.js';

/** The footer in both parts of an e-mail: the text part's lines and the HTML part's markup. */
export interface EmailFooter {
  text: string;
  html: Child;
}

const LINK_STYLE = 'color:#4b5563;text-decoration:underline;';
const ACTION_STYLE = 'display:inline-block;padding:6px 14px;border:1px solid #9ca3af;border-radius:6px;color:#111827;text-decoration:none;font-weight:600;';

/**
 * Says why this arrived and how to change it. With the dashboard's links (the
 * service always passes them) the recipient changes their own level in the
 * channel's settings, or unsubscribes from the channel in one click; without
 * them (a renderer called on its own) an administrator's CLI command is named.
 */
export function emailFooter(channel: ChannelInfo, level: NotifyLevel, email: string, links?: EmailLinks): EmailFooter {
  const what = level === 'important' ? 'warnings and errors' : 'all alerts';
  const why = `You get ${what} from #${channel.slug} in ${channel.workspaceName} by e-mail.`;
  if (!links) {
    const fewer = level === 'important' ? 'none' : 'important|none';
    const text = `${why} To get fewer, ask an administrator to run: notify set --user ${shellWord(email)} --channel ${channel.slug} --level ${fewer}`;
    return { text, html: text };
  }
  const act = links.actions;
  const text = [
    ...(act ? [`Acknowledge: ${act.acknowledgeUrl}`, `Resolve: ${act.resolveUrl}`, ''] : []),
    why,
    `Open #${channel.slug} in Alertbridge: ${links.channelUrl}`,
    `Change your notification level: ${links.settingsUrl}`,
    `Unsubscribe from #${channel.slug}: ${links.unsubscribeUrl}`,
  ].join('\n');
  const html = (
    <>
      {act ? (
        <>
          <a href={act.acknowledgeUrl} style={ACTION_STYLE}>
            Acknowledge
          </a>{' '}
          <a href={act.resolveUrl} style={ACTION_STYLE}>
            Resolve
          </a>
          <br />
          <br />
        </>
      ) : null}
      {why}{' '}
      <a href={links.channelUrl} style={LINK_STYLE}>
        Open #{channel.slug} in Alertbridge
      </a>
      {' · '}
      <a href={links.settingsUrl} style={LINK_STYLE}>
        Change your notification level
      </a>
      {' · '}
      <a href={links.unsubscribeUrl} style={LINK_STYLE}>
        Unsubscribe from #{channel.slug}
      </a>
    </>
  );
  return { text, html };
}

/** An e-mail address as one shell word (single-quoted when it holds characters a shell would act on). */
function shellWord(s: string): string {
  return /^[\w.%+@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
