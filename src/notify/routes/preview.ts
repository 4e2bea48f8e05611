import type { RouteKind, RouteTarget } from '../../domain/routes/route-kinds.js';
import type { RoutePreview } from '../../domain/routes/route-preview.js';
import { renderRequest } from './formats/index.js';
import { routeMessage } from './message.js';
import type { AlertRow } from '../../domain/alert-rows.js';
import { toAlertView } from '../../domain/alert-view.js';

/** Where each kind's placeholder target points: the receiver's own host, with no real credential. */
const PLACEHOLDER: Record<RouteKind, RouteTarget> = {
  slack: { url: 'https://hooks.slack.com/services/T000/B000/XXXX' },
  discord: { url: 'https://discord.com/api/webhooks/000/XXXX' },
  teams: { url: 'https://prod.westeurope.logic.azure.com/workflows/XXXX/triggers/manual/paths/invoke' },
  telegram: { apiUrl: 'https://api.telegram.org', botToken: '000:XXXX', chatId: '-1000000000000' },
  matrix: { url: 'https://matrix.example.org', accessToken: 'syt_XXXX', room: '!room:example.org' },
  ntfy: { url: 'https://ntfy.sh/my-alerts' },
  // A fixed, public placeholder secret: the signature shown is real for this body, useless for any receiver.
  webhook: { url: 'https://example.com/alertbridge', secret: `whsec_${Buffer.alloc(32).toString('base64')}` },
};

/**
 * The sample the previews show: a realistic warning with fields and a link, as a stored alert row,
 * so it goes through the very code a delivery does (routeMessage, toAlertView, renderRequest).
 */
export function previewAlert(channelId: string, now: number): AlertRow {
  return {
    id: 'al_preview', channelId, kind: 'standard', title: 'Disk 91% full on db-1', level: 'WARNING', emoji: '⚠️',
    message: '/var/lib/postgresql has 9 GB left of 100 GB; at the current rate it fills in about 6 hours.',
    fieldsJson: JSON.stringify([{ label: 'Host', value: 'db-1.eu-west', inline: true }, { label: 'Used', value: '91%', inline: true }]),
    linkUrl: 'https://grafana.example.com/d/disk', linkText: 'Open the dashboard', source: 'prometheus', actorJson: null,
    workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null, externalId: null,
    authorJson: null, replyToJson: null, threadId: null, threadJson: null, tagsJson: null, reactionsJson: null, reactionCount: 0, silencedBy: null, silenceComment: null, activityKey: 'al_preview', seq: 1,
    createdAt: now, updatedAt: now, status: 'open', acknowledgedAt: null, acknowledgedByJson: null, resolvedAt: null,
    resolvedByJson: null, snoozedUntil: null, occurrences: 1,
  };
}

const shorten = (value: string) => (value.length > 24 ? `${value.slice(0, 20)}…` : value);

/** The request a route of `kind` makes for the sample alert, rendered by the senders' own code. */
export function routePreview(kind: RouteKind, channel: { id: string; slug: string; name: string }, o: { publicUrl: string; now: number; mediaUrl: (key: string) => string }): RoutePreview {
  const alert = previewAlert(channel.id, o.now);
  const event = 'alert.opened';
  const message = routeMessage(alert, [], { ...channel, icon: '', workspaceName: '' }, event, { publicUrl: o.publicUrl, mediaUrl: o.mediaUrl });
  // As the sender's webhookPayload: the alert's standard JSON without the reader's isRead, plus event and channel.
  const { isRead: _isRead, ...view } = toAlertView(alert, [], false, o.mediaUrl) as Record<string, unknown>;
  const webhookPayload = { ...view, event, channel };
  const req = renderRequest({ kind, target: PLACEHOLDER[kind], message, messageRef: null, webhookId: 'msg_rd1', webhookPayload, now: o.now });
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, k === 'authorization' || k === 'webhook-signature' ? shorten(v) : v]),
  );
  let json: unknown = null;
  try {
    json = kind === 'ntfy' ? null : JSON.parse(req.body);
  } catch {
    json = null;
  }
  return { kind, method: req.method, url: req.url, headers, body: req.body, json };
}
