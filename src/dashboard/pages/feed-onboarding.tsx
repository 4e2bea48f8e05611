import type { ChannelView } from '../../domain/read-api.js';
import { Csrf } from '../views/layout.js';
import { CopyBox } from '../views/components.js';

/** The drop-in formats, each with the URL suffix and where that tool takes it. */
const TOOLS: { name: string; suffix: string; where: string }[] = [
  { name: 'Slack-compatible', suffix: '/slack', where: 'Any tool that posts to a Slack incoming webhook: paste it as the Slack webhook URL.' },
  { name: 'Prometheus Alertmanager', suffix: '/alertmanager', where: 'alertmanager.yml → receivers → webhook_configs → url (keep send_resolved: true).' },
  { name: 'Grafana', suffix: '/grafana', where: 'Alerting → Contact points → Add contact point → Webhook → URL.' },
  { name: 'GitHub', suffix: '/github', where: 'Repository or organisation Settings → Webhooks → Payload URL, content type application/json.' },
];

export interface OnboardingProps {
  /** The channel the panel feeds: the one shown, or the workspace's first that takes webhooks; none when there is none. */
  channel: ChannelView | undefined;
  publicUrl: string;
  /** The URL was asked for (the same rule as the channel's settings: masked until the reader reveals it). */
  reveal: boolean;
  manager: boolean;
  csrfToken: string;
  /** The feed page to come back to after the test alert's POST. */
  back: string;
  /** This page's URL with `reveal=1`, for the no-JS reveal link. */
  revealHref: string;
}

/**
 * "Send your first alert": what an empty workspace or channel shows instead of a sentence. A
 * button that posts a sample through the webhook's own use case (it arrives on this page live),
 * the webhook URL and a curl line to copy, and the exact URL for each drop-in format. The URL is
 * a secret: masked until revealed, to whoever may see the channel (docs/security.md).
 */
export function Onboarding(props: OnboardingProps) {
  const ch = props.channel;
  if (!ch) {
    return (
      <section class="onboarding" id="onboarding" aria-labelledby="onboarding-title">
        <h2 id="onboarding-title">Send your first alert</h2>
        {props.manager ? (
          <>
            <p>Alerts arrive in channels. Create one, then post to its webhook URL.</p>
            <a class="button primary" href="/channels#new-channel">
              Create a channel
            </a>
          </>
        ) : (
          <p>There is no channel you can see yet. Ask an owner or admin of this workspace to create one or to add you to one.</p>
        )}
      </section>
    );
  }
  const url = `${props.publicUrl}/api/webhook/${ch.webhookToken}`;
  const shown = props.reveal ? url : `${props.publicUrl}/api/webhook/whk_${'•'.repeat(12)}`;
  const curl = `curl -X POST ${url} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"title":"Deploy finished","level":"SUCCESS","emoji":"rocket"}'`;
  return (
    <section class="onboarding" id="onboarding" aria-labelledby="onboarding-title">
      <h2 id="onboarding-title">Send your first alert</h2>
      <p class="muted">
        Anything that can make an HTTP request can post to{' '}
        <b>
          {ch.icon} #{ch.slug}
        </b>
        . Alerts show up here the moment they arrive.
      </p>
      <ol class="onboarding-steps">
        <li>
          <h3>Try it now</h3>
          {/* htmx posts it and leaves the page be: the live stream brings the card, as it would a real alert. */}
          <form method="post" action="/feed/test-alert" hx-post="/feed/test-alert" hx-swap="none" class="onboarding-send">
            <Csrf token={props.csrfToken} />
            <input type="hidden" name="channel" value={ch.id} />
            <input type="hidden" name="back" value={props.back} />
            <button type="submit" class="button primary">
              Send a test alert
            </button>
            <span class="hint" id="test-alert-hint">
              Posts a sample through the webhook, counted like any alert.
            </span>
          </form>
        </li>
        <li id="onboarding-url">
          <h3>From your code or scripts</h3>
          {props.reveal ? (
            <>
              <CopyBox id="onboarding-webhook" label="Webhook URL" value={url} copyLabel="Copy webhook URL" />
              <CopyBox id="onboarding-curl" label="Or paste this into a terminal" value={curl} copyLabel="Copy curl command" multiline />
            </>
          ) : (
            <div class="onboarding-masked">
              <code>{shown}</code>
              <a class="button small" href={props.revealHref} hx-get={props.revealHref} hx-select="#onboarding" hx-target="#onboarding" hx-swap="outerHTML">
                Reveal webhook URL
              </a>
              <p class="hint">Treat it like a password: whoever holds it can post to this channel.</p>
            </div>
          )}
        </li>
        <li>
          <h3>From a tool you already use</h3>
          <ul class="onboarding-tools">
            {TOOLS.map((t) => (
              <li>
                <b>{t.name}</b>
                <code class="onboarding-tool-url">{`${shown}${t.suffix}`}</code>
                <span class="hint">{t.where}</span>
              </li>
            ))}
          </ul>
          <p class="hint">
            Every path and field: <a href="/docs">the API reference</a>.
          </p>
        </li>
      </ol>
    </section>
  );
}
