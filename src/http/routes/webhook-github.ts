import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { Problem } from '../schemas.js';
import { AppError } from '../../domain/errors.js';
import { parseGithubBody, verifyGithubSignature } from '../../domain/formats/github-body.js';
import { mapGithub } from '../../domain/formats/github.js';
import { LONG_KEY_PREFIX, LONG_WINDOW_MS } from '../../domain/idempotency.js';
import type { AppEnv } from '../env.js';
import type { WebhookBodyReader } from '../webhook-body.js';
import { jsonText, readBodyCapped } from '../body.js';
import { setRateHeaders } from '../rate-limit.js';
import { ALERT_ID_HEADER, FORMAT_PROBLEMS, replayStoredAnswer } from './webhook-formats.js';

/** GitHub caps a delivery at 25 MB; a push with many commits comes close. */
const MAX_GITHUB_BODY_BYTES = 25 * 1024 * 1024;

/**
 * GitHub's webhook path. The body is read raw: the signature covers the exact
 * bytes, and the form encoding carries the JSON in a `payload` field. Mapped
 * commands go through the plain webhook's accept path; X-GitHub-Delivery is the
 * idempotency key, kept 7 days so GitHub's redeliveries never duplicate.
 */
export function registerWebhookGithub(app: OpenAPIHono<AppEnv>, webhookBody: WebhookBodyReader) {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/api/webhook/{token}/github',
    summary: 'Take a GitHub webhook delivery (push, pull_request, issues, release, workflow_run, workflow_job; ping; others ignored)',
    description:
      '`X-GitHub-Event` selects the mapping; `X-GitHub-Delivery` is the idempotency key, kept 7 days. When the channel has a signing secret, `X-Hub-Signature-256` is required. `workflow_job` merges one step per job (keyed by job name) into its run. An event for a run that already completed is answered 200 `{"ignored": event}`.',
    request: {
      params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' }, description: "The channel's webhook token" }) }),
      headers: z.object({ 'x-github-event': z.string(), 'x-github-delivery': z.string().optional(), 'x-hub-signature-256': z.string().optional() }),
      body: {
        required: true,
        content: {
          'application/json': { schema: z.object({}).passthrough().openapi({ description: "GitHub's event payload" }) },
          'application/x-www-form-urlencoded': { schema: z.object({ payload: z.string() }) },
        },
      },
    },
    responses: {
      200: { description: 'Stored (the plain webhook answer), or `{"ignored": event}`, or a ping answered', content: { 'application/json': { schema: z.object({}).passthrough() } } },
      401: { description: 'Missing or wrong X-Hub-Signature-256 (the channel has a signing secret)', content: { 'application/problem+json': { schema: Problem } } },
      ...FORMAT_PROBLEMS,
    },
  });
  app.post('/api/webhook/:token/github', async (c) => {
    const { acceptAlert } = c.var.services;
    const delivery = c.req.header('x-github-delivery')?.trim() || undefined;
    const key = delivery === undefined ? undefined : `${LONG_KEY_PREFIX}${delivery}`;
    const channel = await acceptAlert.admit(c.req.param('token'), key, (d) => setRateHeaders(c, d));
    const bytes = await readBodyCapped(c.req.raw, MAX_GITHUB_BODY_BYTES);
    // Before parsing: a forged body is refused without being looked at.
    if (channel.signingSecret) {
      const check = verifyGithubSignature(bytes, c.req.header('x-hub-signature-256'), channel.signingSecret);
      if (!check.ok) {
        const why = { missing: 'the X-Hub-Signature-256 header is missing', malformed: 'X-Hub-Signature-256 is not sha256=<64 hex digits>', mismatch: 'X-Hub-Signature-256 does not match the body under this channel\'s signing secret' };
        throw new AppError('invalid-signature', why[check.reason]);
      }
    }
    const replay = (answerJson: string) => replayStoredAnswer(c, answerJson);
    const json = parseGithubBody(jsonText(bytes), c.req.header('content-type'));
    const cmd = mapGithub(c.req.header('x-github-event'), json);
    switch (cmd.kind) {
      case 'ping':
        return c.json({ ok: true }, 200);
      case 'ignored':
        return c.json({ ignored: cmd.event }, 200);
      case 'job': {
        const received = webhookBody.fromBytes(c.req.raw, json, bytes);
        const outcome = await acceptAlert.acceptJob(channel, cmd, received, key, LONG_WINDOW_MS);
        if (outcome.replayed) return replay(outcome.answerJson);
        // A job after its run completed (GitHub does not order deliveries) is answered 200 and ignored (issue 14).
        if (outcome.ignored) return c.json({ ignored: 'workflow_job', reason: 'the run already completed' }, 200);
        c.header(ALERT_ID_HEADER, outcome.answer.alertId);
        return c.json(outcome.answer, 200);
      }
      case 'group':
        throw new AppError('internal', 'a GitHub event mapped to an alert group');
      case 'alert':
      case 'run': {
        const mapped = cmd.kind === 'alert' ? cmd : { payload: cmd.payload, attachmentUrls: [] };
        const received = webhookBody.fromBytes(c.req.raw, json, bytes);
        try {
          // A run's update keeps the steps its workflow_job events stored.
          const accepted = await acceptAlert.acceptMapped(channel, mapped, received, key, LONG_WINDOW_MS, { keepSteps: cmd.kind === 'run' });
          if (accepted.replayed) return replay(accepted.answerJson);
          c.header(ALERT_ID_HEADER, accepted.answer.alertId);
          return c.json(accepted.answer, 200);
        } catch (err) {
          // An event after its run completed (GitHub does not order deliveries) is answered 200 and ignored (issue 14).
          if (err instanceof AppError && err.code === 'workflow-run-finished') return c.json({ ignored: 'workflow_run', reason: 'the run already completed' }, 200);
          throw err;
        }
      }
    }
  });
}
