import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { IDEMPOTENCY_WINDOW_HOURS } from '../../domain/idempotency.js';
import { mediaLimitsText } from '../../media/formats.js';
import { MAX_ATTACHMENTS } from '../../domain/media.js';
import { parseCommonPayload, WebhookPayload } from '../../domain/webhook/payload.js';
import type { AppEnv } from '../env.js';
import type { WebhookBodyReader } from '../webhook-body.js';
import { requireBodyType } from '../body.js';
import type { RateDecision } from '../../domain/rate-limiter.js';
import { plainJson } from '../plain-response.js';
import { rateHeaders, setRateHeaders } from '../rate-limit.js';
import { Problem } from '../schemas.js';
import { validationError } from '../validation.js';

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });

export const WebhookAccepted = z
  .object({
    success: z.literal(true),
    alertId: z.string(),
    destination: z.object({
      workspace: z.object({ id: z.string(), name: z.string() }),
      channel: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    }),
    workflow: z.object({ runId: z.string(), state: z.string(), created: z.boolean() }).optional(),
  })
  .openapi('WebhookAccepted');

const webhookRoute = createRoute({
  method: 'post',
  path: '/api/webhook/{token}',
  summary: 'Create an alert (or update a workflow run) in the channel that owns this webhook token',
  description: `No Authorization header: the token in the path selects the channel. JSON body, or multipart/form-data with a \`payload\` part (the same JSON) and one file part per attachment (at most ${MAX_ATTACHMENTS} attachments in all). Optional \`Idempotency-Key\` header (${IDEMPOTENCY_WINDOW_HOURS} h).`,
  request: {
    params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' }, description: "The channel's webhook token" }) }),
    headers: z.object({ 'idempotency-key': z.string().optional() }),
    body: {
      required: true,
      content: {
        'application/json': { schema: WebhookPayload },
        'multipart/form-data': {
          schema: z.object({ payload: z.string().openapi({ description: 'The JSON payload' }), file: z.any().openapi({ type: 'string', format: 'binary' }) }),
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Alert stored: created, or (with a workflow block or a dedupKey) a run or keyed alert created or updated in place; `workflow.created` tells which',
      content: { 'application/json': { schema: WebhookAccepted } },
    },
    202: {
      description: 'A `status: resolved` with a `dedupKey` under which nothing is open: nothing stored',
      content: { 'application/json': { schema: z.object({ success: z.literal(true), matched: z.literal(false) }).openapi('WebhookUnmatched') } },
    },
    400: problem('Invalid payload, malformed JSON, an unsupported attachment, or a dedupKey with a workflow'),
    404: problem('Unknown webhook token'),
    409: problem('Same Idempotency-Key still running, run already finished, or channel is chat-connected'),
    429: problem('More than WEBHOOK_RATE_LIMIT_PER_MINUTE requests to this webhook in a minute; see Retry-After'),
    413: problem(`Body or attachment too large (attachments: ${mediaLimitsText()})`),
    415: problem('Unsupported content type'),
    422: problem('Idempotency-Key reused with another body, or attachment URL not fetchable'),
    500: problem('Internal error'),
    503: problem('Storage unavailable (disk full or I/O error): nothing was stored; see Retry-After'),
  },
});

/**
 * The webhook path. Registered with the OpenAPI registry for the document,
 * but parsed here by hand: the body may be JSON or multipart and must be read
 * with a cap, and the channel lookup (404) comes before any body parsing.
 */
export function registerWebhook(app: OpenAPIHono<AppEnv>, webhookBody: WebhookBodyReader) {
  app.openAPIRegistry.registerPath(webhookRoute);

  app.post('/api/webhook/:token', async (c) => {
    // c.get, not c.var: Hono builds a new object of every variable on each c.var.
    const { acceptAlert } = c.get('services');
    const key = c.req.header('idempotency-key');
    // The decision is kept for the answer's headers; an error answer gets them on the context (problemResponse keeps them).
    let rate: RateDecision | undefined;
    try {
      const channel = await acceptAlert.admit(c.req.param('token'), key, (d) => (rate = d));
      const kind = requireBodyType(c.req.header('content-type'), { multipart: true });
      const received = await webhookBody.read(c.req.raw, kind);
      // The common shapes are checked without zod (parseCommonPayload, from the same member table); anything else, and every error, goes through the schema.
      let alert = parseCommonPayload(received.json);
      if (!alert) {
        const parsed = WebhookPayload.safeParse(received.json);
        if (!parsed.success) {
          await received.files.discard();
          throw validationError('invalid-payload', parsed.error.issues);
        }
        alert = parsed.data;
      }
      const accepted = await acceptAlert.accept(channel, alert, received, key);
      // Every accepted POST is a 201 (spec); a replay repeats the stored answer byte for byte.
      const headers = rateHeaders(rate!);
      // A resolve for a dedupKey with nothing open stored nothing: 202, as the 201 body always names an alert.
      if (!accepted.replayed) return plainJson(c, 'matched' in accepted.answer ? 202 : 201, JSON.stringify(accepted.answer), headers);
      headers['idempotency-replayed'] = 'true';
      return plainJson(c, 201, accepted.answerJson, headers);
    } catch (err) {
      if (rate) setRateHeaders(c, rate);
      throw err;
    }
  });
}
