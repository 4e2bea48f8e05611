import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { PING_BODY_LIMIT, type PingAnswer, type PingInput } from '../../domain/heartbeats/pinger.js';
import type { AppEnv } from '../env.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METHODS = ['GET', 'POST', 'HEAD'];

/** Reads at most PING_BODY_LIMIT bytes of a body and drops the rest unread (a ping's log is its first 10 KB). */
async function bodyHead(c: Context<AppEnv>): Promise<Uint8Array | null> {
  const stream = c.req.method === 'POST' ? c.req.raw.body : null;
  if (!stream) return null;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < PING_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    if (size >= PING_BODY_LIMIT) void reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const out = new Uint8Array(Math.min(size, PING_BODY_LIMIT));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Healthchecks' answers: plain text, never cached, readable from any origin, with the body limit announced. */
function answer(a: PingAnswer): Response {
  return new Response(a.body, {
    status: a.status,
    headers: {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'max-age=0, no-cache, no-store, must-revalidate, private',
      'Access-Control-Allow-Origin': '*',
      'Ping-Body-Limit': String(PING_BODY_LIMIT),
    },
  });
}

async function inputOf(c: Context<AppEnv>, suffix: string | undefined): Promise<PingInput> {
  return { suffix, rid: c.req.query('rid'), method: c.req.method, userAgent: c.req.header('user-agent') ?? null, body: await bodyHead(c) };
}

/**
 * The Healthchecks-compatible ping URLs (docs/heartbeats.md): `/ping/{uuid}[/start|/fail|/log|/{0-255}]`
 * and `/ping/{ping-key}/{slug}[/…]`. The UUID or the ping key is the only credential; the access log
 * masks it (maskPath).
 */
export function registerPing(app: OpenAPIHono<AppEnv>) {
  const pinger = (c: Context<AppEnv>) => c.var.services.heartbeats.pinger;
  app.on(METHODS, '/ping/:uuid', async (c) => {
    const uuid = c.req.param('uuid');
    if (!UUID.test(uuid)) return answer({ status: 404, body: 'not found' });
    return answer(await pinger(c).byUuid(uuid, await inputOf(c, undefined)));
  });
  app.on(METHODS, '/ping/:uuidOrKey/:suffixOrSlug', async (c) => {
    const head = c.req.param('uuidOrKey');
    const next = c.req.param('suffixOrSlug');
    if (UUID.test(head)) return answer(await pinger(c).byUuid(head, await inputOf(c, next)));
    return answer(await pinger(c).bySlug(head, next, await inputOf(c, undefined)));
  });
  app.on(METHODS, '/ping/:pingKey/:slug/:suffix', async (c) => {
    const key = c.req.param('pingKey');
    if (UUID.test(key)) return answer({ status: 404, body: 'not found' });
    return answer(await pinger(c).bySlug(key, c.req.param('slug'), await inputOf(c, c.req.param('suffix'))));
  });
  documentPing(app);
}

const SUFFIXES = '`start`, `fail`, `log`, or an exit status 0–255 (0 success, 1–255 failure)';
const pathParam = (name: string, description: string) => z.string().openapi({ param: { name, in: 'path' }, description });
const rid = z.string().optional().openapi({ description: "A run id (a UUID) pairing a start with its end, as Healthchecks' `rid`." });
const answers = {
  200: { description: '`OK` (also over the rate limit for a UUID ping: the ping is then not recorded)', content: { 'text/plain': { schema: z.string() } } },
  400: { description: '`invalid url format` (suffix) or `invalid uuid format` (rid)', content: { 'text/plain': { schema: z.string() } } },
  404: { description: '`not found`: no such check', content: { 'text/plain': { schema: z.string() } } },
} as const;

/** The ping URLs in the OpenAPI document: plain-text answers, Healthchecks' contract (docs/heartbeats.md). */
function documentPing(app: OpenAPIHono<AppEnv>) {
  const uuid = pathParam('uuid', "The check's ping UUID");
  const forms = [
    { path: '/ping/{uuid}', summary: 'Heartbeat: success, by UUID', params: { uuid } },
    {
      path: '/ping/{uuidOrKey}/{suffixOrSlug}',
      summary: `Heartbeat: /ping/{uuid}/{suffix} with ${SUFFIXES}; or the success of /ping/{ping-key}/{slug}`,
      params: { uuidOrKey: pathParam('uuidOrKey', "The check's UUID, or the workspace's ping key"), suffixOrSlug: pathParam('suffixOrSlug', 'A suffix after a UUID, or the slug after a ping key') },
    },
    {
      path: '/ping/{pingKey}/{slug}/{suffix}',
      summary: `Heartbeat by slug with a suffix: ${SUFFIXES}`,
      params: { pingKey: pathParam('pingKey', "The workspace's ping key"), slug: pathParam('slug', "The check's slug"), suffix: pathParam('suffix', SUFFIXES) },
    },
  ];
  for (const f of forms) {
    for (const method of ['get', 'post'] as const) {
      app.openAPIRegistry.registerPath({
        method,
        path: f.path,
        summary: f.summary,
        description: 'GET, POST and HEAD alike. A POST body (its first 10 KB, as text) is kept as the ping\'s log. The slug form answers 429 over the per-check rate limit.',
        request: { params: z.object(f.params), query: z.object({ rid }) },
        responses: f.path === '/ping/{uuid}' ? answers : { ...answers, 429: { description: '`rate limit exceeded` (slug form only)', content: { 'text/plain': { schema: z.string() } } } },
      });
    }
  }
}
