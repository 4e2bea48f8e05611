import type { Context } from 'hono';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { Problem } from '../schemas.js';
import type { ReceivedWebhookBody, AcceptedMapped } from '../../domain/webhook/accept-alert.js';
import type { WebhookChannel } from '../../domain/webhook/ingest.js';
import { DiscordBody, mapDiscord } from '../../domain/formats/discord.js';
import { discordMessage } from '../../domain/formats/discord-message.js';
import { mapSlack } from '../../domain/formats/slack.js';
import type { AlertCommand } from '../../domain/formats/command.js';
import type { AppEnv } from '../env.js';
import type { WebhookBodyReader } from '../webhook-body.js';
import { requireBodyType } from '../body.js';
import { setRateHeaders } from '../rate-limit.js';

/** The header every drop-in answer carries: the senders' own answers have no place for our id. */
export const ALERT_ID_HEADER = 'X-Alertbridge-Alert-Id';

type Ctx = Context<AppEnv>;

const snowflakeDoc = z.string().regex(/^\d+$/).openapi({ example: '1302441818054688768' });
/** The documented part of Discord's message object (`discordMessage` builds it); clients may find more keys, as from Discord. */
const DiscordMessageDoc = z
  .object({
    id: snowflakeDoc,
    type: z.literal(0),
    channel_id: snowflakeDoc,
    author: z.object({ id: snowflakeDoc, username: z.string(), bot: z.literal(true) }).passthrough(),
    content: z.string(),
    embeds: z.array(z.object({ type: z.literal('rich'), title: z.string().optional(), description: z.string().optional(), url: z.string().optional(), color: z.number().int().optional() }).passthrough()),
    attachments: z.array(z.object({ id: snowflakeDoc, filename: z.string(), size: z.number().int(), url: z.string(), content_type: z.string() }).passthrough()),
    timestamp: z.string().openapi({ example: '2026-11-22T12:00:00.000000+00:00' }),
    edited_timestamp: z.null(),
    pinned: z.literal(false),
    webhook_id: snowflakeDoc,
  })
  .passthrough()
  .openapi('DiscordMessage');

/**
 * Admits the request (channel, chat-connected refusal, rate limit) before a byte
 * of the body is read, exactly as the plain webhook does, then reads the body.
 */
export async function admitAndRead(c: Ctx, webhookBody: WebhookBodyReader, opts: { multipart: boolean; payloadPart?: string }) {
  const { acceptAlert } = c.var.services;
  const key = c.req.header('idempotency-key');
  const channel = await acceptAlert.admit(c.req.param('token')!, key, (d) => setRateHeaders(c, d));
  const kind = requireBodyType(c.req.header('content-type'), { multipart: opts.multipart });
  const received = await webhookBody.read(c.req.raw, kind, opts.payloadPart);
  return { channel, key, received };
}

/** Maps with the body's files settled on a refusal (a 400 keeps no upload). */
export async function mapOrDiscard<T>(received: ReceivedWebhookBody, map: () => T): Promise<T> {
  try {
    return map();
  } catch (err) {
    await received.files.discard();
    throw err;
  }
}

/** A stored answer (the plain webhook's JSON, written by this server): only its alert id is read back. */
const StoredAnswer = z.object({ alertId: z.string() });

/** The alert id of an answer, the replayed one included. */
function alertIdOf(accepted: AcceptedMapped): string {
  return accepted.replayed ? StoredAnswer.parse(JSON.parse(accepted.answerJson)).alertId : accepted.answer.alertId;
}

/** A replay of a JSON answer as it was first sent (Alertmanager, Grafana, GitHub): 200, the stored body, the alert id header. */
export function replayStoredAnswer(c: Ctx, answerJson: string): Response {
  c.header('Idempotency-Replayed', 'true');
  c.header(ALERT_ID_HEADER, StoredAnswer.parse(JSON.parse(answerJson)).alertId);
  return c.body(answerJson, 200, { 'content-type': 'application/json' });
}

async function acceptCommand(c: Ctx, channel: WebhookChannel, cmd: AlertCommand, received: ReceivedWebhookBody, key: string | undefined) {
  const accepted = await c.var.services.acceptAlert.acceptMapped(channel, cmd, received, key);
  c.header(ALERT_ID_HEADER, alertIdOf(accepted));
  if (accepted.replayed) c.header('Idempotency-Replayed', 'true');
  return accepted;
}

/**
 * Slack's and Discord's incoming-webhook paths: the body is mapped to a plain
 * alert (src/domain/formats) and goes through the plain webhook's accept path
 * (rate limit, idempotency, media, notifications, usage); only the answer takes
 * the provider's shape, so their client libraries keep working.
 */
export function registerWebhookFormats(app: OpenAPIHono<AppEnv>, webhookBody: WebhookBodyReader) {
  for (const doc of FORMAT_DOCS) app.openAPIRegistry.registerPath(doc);
  app.post('/api/webhook/:token/slack', async (c) => {
    const { channel, key, received } = await admitAndRead(c, webhookBody, { multipart: false });
    const cmd = await mapOrDiscard(received, () => mapSlack(received.json));
    await acceptCommand(c, channel, cmd, received, key);
    // Slack answers 200 text/plain "ok"; some senders compare the body.
    return c.text('ok', 200);
  });

  app.post('/api/webhook/:token/discord', async (c) => {
    const { channel, key, received } = await admitAndRead(c, webhookBody, { multipart: true, payloadPart: 'payload_json' });
    const cmd = await mapOrDiscard(received, () => mapDiscord(received.json, { fileCount: received.files.uploadCount }));
    const accepted = await acceptCommand(c, channel, cmd, received, key);
    if (c.req.query('wait') !== 'true') return c.body(null, 204);
    return c.json(await waitAnswer(c, channel, accepted, received.json), 200);
  });
}

/**
 * Discord's `?wait=true` answer: the message object, built from the stored
 * alert (its id and creation time, so a replay answers the same ids) and its
 * stored attachments.
 */
async function waitAnswer(c: Ctx, channel: WebhookChannel, accepted: AcceptedMapped, json: unknown) {
  const { store, media } = c.var.services;
  const alertId = alertIdOf(accepted);
  const row = await store.reads.alert(alertId);
  const body = DiscordBody.parse(json);
  // A replay answers the files the first answer named: a Discord alert's files never change after it is stored.
  const stored = accepted.replayed ? ((await store.reads.readContext('', channel.id, [alertId])).attachments.get(alertId) ?? []) : accepted.attachments;
  return discordMessage({
    alertId,
    createdAt: row?.createdAt ?? Date.now(),
    channelId: channel.id,
    webhookKey: channel.id,
    username: body.username?.trim() || channel.name,
    avatarUrl: body.avatar_url,
    body,
    attachments: stored.map((a) => ({ id: a.mediaKey, filename: a.name ?? a.mediaKey, size: a.size, url: media.urlFor(a.mediaKey), contentType: a.mime })),
  });
}

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });
const tokenParam = z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' }, description: "The channel's webhook token" }) });
const providerBody = (what: string) => ({
  required: true,
  content: { 'application/json': { schema: z.object({}).passthrough().openapi({ description: what }) } },
});
/** The refusals every drop-in path shares with the plain webhook. */
export const FORMAT_PROBLEMS = {
  400: problem('Unreadable body: malformed JSON, or nothing to show'),
  404: problem('Unknown webhook token'),
  409: problem('Same Idempotency-Key still running, or channel is chat-connected'),
  413: problem('Body too large'),
  415: problem('Unsupported content type'),
  429: problem('More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After'),
  503: problem('Storage unavailable: nothing was stored; see Retry-After'),
};

const FORMAT_DOCS = [
  {
    method: 'post' as const,
    path: '/api/webhook/{token}/slack',
    summary: "Create an alert from Slack's incoming-webhook body (text, blocks, legacy attachments)",
    description: 'Answers as Slack does. `X-Alertbridge-Alert-Id` carries the alert id. An image that cannot be fetched is skipped and named in the message. Optional `Idempotency-Key` header.',
    request: { params: tokenParam, body: providerBody("Slack's incoming-webhook body") },
    responses: { 200: { description: 'Stored', content: { 'text/plain': { schema: z.literal('ok') } } }, ...FORMAT_PROBLEMS },
  },
  {
    method: 'post' as const,
    path: '/api/webhook/{token}/discord',
    summary: "Create an alert from Discord's execute-webhook body (JSON, or multipart with payload_json and files[n])",
    description: 'Answers as Discord does: 204, or with `?wait=true` a 200 Discord message object. `X-Alertbridge-Alert-Id` carries the alert id. Optional `Idempotency-Key` header.',
    request: {
      params: tokenParam,
      query: z.object({ wait: z.enum(['true', 'false']).optional() }),
      body: {
        required: true,
        content: {
          'application/json': { schema: z.object({}).passthrough().openapi({ description: "Discord's execute-webhook body" }) },
          'multipart/form-data': { schema: z.object({ payload_json: z.string(), 'files[0]': z.any().openapi({ type: 'string', format: 'binary' }) }) },
        },
      },
    },
    responses: {
      200: { description: '`?wait=true`: the message object as Discord returns it', content: { 'application/json': { schema: DiscordMessageDoc } } },
      204: { description: 'Stored' },
      ...FORMAT_PROBLEMS,
    },
  },
];
