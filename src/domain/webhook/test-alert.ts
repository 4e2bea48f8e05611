import type { AcceptWebhookAlert } from './accept-alert.js';
import { WebhookPayload } from './payload.js';
import type { WebhookFiles } from './request-files.js';

/** What "Send a test alert" posts: the JSON a first curl would send, so the card shows what a real alert looks like. */
export function sampleAlertPayload(sentBy: string) {
  return {
    title: 'Test alert: your webhook works',
    level: 'SUCCESS',
    emoji: 'tada',
    message: `${sentBy} sent this from the dashboard. Anything that POSTs JSON to this channel's webhook URL shows up here, live.`,
    fields: [
      { name: 'next step', value: 'Paste the webhook URL into your CI, monitoring or deploy script', inline: false },
    ],
    source: 'Alertbridge test',
  };
}

/**
 * The onboarding's "Send a test alert": the sample goes through the webhook's own use case
 * (`admit` then `accept`), so it is rate-limited, stored, counted in usage, notified and
 * streamed exactly like a POST to the webhook URL, and a chat-connected channel refuses it alike.
 */
export async function sendTestAlert(deps: { acceptAlert: Pick<AcceptWebhookAlert, 'admit' | 'accept'>; webhookFiles: WebhookFiles }, webhookToken: string, sentBy: string): Promise<string> {
  const channel = await deps.acceptAlert.admit(webhookToken, undefined, () => {});
  const json = sampleAlertPayload(sentBy);
  const files = deps.webhookFiles.open(() => new AbortController().signal);
  const accepted = await deps.acceptAlert.accept(channel, WebhookPayload.parse(json), { json, fingerprintParts: [], files });
  if (accepted.replayed) throw new Error('a test alert has no Idempotency-Key, so it is never a replay');
  // A sample has no dedupKey, so it is never an unmatched resolve.
  if (!('alertId' in accepted.answer)) throw new Error('a test alert always stores an alert');
  return accepted.answer.alertId;
}
