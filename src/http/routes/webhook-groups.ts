import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { mapAlertmanager } from '../../domain/formats/alertmanager.js';
import { mapGrafana } from '../../domain/formats/grafana.js';
import type { GroupCommand } from '../../domain/formats/command.js';
import type { AppEnv } from '../env.js';
import type { WebhookBodyReader } from '../webhook-body.js';
import { ALERT_ID_HEADER, FORMAT_PROBLEMS, admitAndRead, mapOrDiscard, replayStoredAnswer } from './webhook-formats.js';

const MAPPERS: Record<'alertmanager' | 'grafana', (body: unknown) => GroupCommand> = { alertmanager: mapAlertmanager, grafana: mapGrafana };

/**
 * Alertmanager's and Grafana's webhook paths: one alert per group key,
 * updated in place (src/domain/webhook/ingest-formats.ts has the state table).
 * Both senders only look at the status, so the answer is 200 with the plain
 * webhook's JSON plus the group's state.
 */
export function registerWebhookGroups(app: OpenAPIHono<AppEnv>, webhookBody: WebhookBodyReader) {
  for (const format of ['alertmanager', 'grafana'] as const) {
    app.openAPIRegistry.registerPath(groupDoc(format));
    app.post(`/api/webhook/:token/${format}`, async (c) => {
      const { channel, key, received } = await admitAndRead(c, webhookBody, { multipart: false });
      const cmd = await mapOrDiscard(received, () => MAPPERS[format](received.json));
      const accepted = await c.var.services.acceptAlert.acceptGroup(channel, cmd, received, key);
      if (accepted.replayed) return replayStoredAnswer(c, accepted.answerJson);
      c.header(ALERT_ID_HEADER, accepted.answer.alertId);
      return c.json(accepted.answer, 200);
    });
  }
}

const GroupAnswer = z.object({
  success: z.literal(true),
  alertId: z.string(),
  destination: z.object({}).passthrough(),
  group: z.object({
    status: z.enum(['firing', 'resolved']),
    created: z.boolean().openapi({ description: 'True when this notification started the alert' }),
    repeat: z.boolean().openapi({ description: 'True for a resend of an unchanged group: nothing was changed, nobody notified' }),
  }),
});

function groupDoc(format: 'alertmanager' | 'grafana') {
  const am = format === 'alertmanager';
  return {
    method: 'post' as const,
    path: `/api/webhook/{token}/${format}`,
    summary: am
      ? "Take a Prometheus Alertmanager webhook_configs notification (version 4): one alert per groupKey, updated in place"
      : "Take a Grafana unified-alerting webhook contact point notification: one alert per groupKey, updated in place",
    description: [
      'Firing: the level comes from `commonLabels.severity` (critical/error/page → ERROR, warning → WARNING, info/none → INFO, missing → ERROR). Resolved: SUCCESS, unread again.',
      'A group that fires again reopens the same alert (unread, notified, one more usage event). Notifications go out when a group starts firing and when it resolves, never for a resend of an unchanged group.',
      am
        ? 'Title: `commonAnnotations.summary`, else the alert name and the number of alerts.'
        : "Title: Grafana's `title`. Each alert's `imageURL` is fetched as an attachment; one that cannot be fetched is skipped and named in the message.",
      '`X-Alertbridge-Alert-Id` carries the alert id. Optional `Idempotency-Key` header.',
    ].join(' '),
    request: {
      params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' }, description: "The channel's webhook token" }) }),
      body: {
        required: true,
        content: { 'application/json': { schema: z.object({}).passthrough().openapi({ description: am ? "Alertmanager's webhook body (version 4)" : "Grafana's webhook contact point body" }) } },
      },
    },
    responses: {
      200: { description: 'Stored, updated, or a repeat answered without change', content: { 'application/json': { schema: GroupAnswer } } },
      ...FORMAT_PROBLEMS,
    },
  };
}
