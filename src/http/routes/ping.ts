import type { Context, Hono } from 'hono';
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
export function registerPing(app: Hono<AppEnv>) {
  const pinger = (c: Context<AppEnv>) => c.var.services.heartbeats.pinger;
  app.on(METHODS, '/ping/:id', async (c) => {
    const id = c.req.param('id');
    if (!UUID.test(id)) return answer({ status: 404, body: 'not found' });
    return answer(await pinger(c).byUuid(id, await inputOf(c, undefined)));
  });
  app.on(METHODS, '/ping/:id/:next', async (c) => {
    const id = c.req.param('id');
    if (UUID.test(id)) return answer(await pinger(c).byUuid(id, await inputOf(c, c.req.param('next'))));
    return answer(await pinger(c).bySlug(id, c.req.param('next'), await inputOf(c, undefined)));
  });
  app.on(METHODS, '/ping/:key/:slug/:suffix', async (c) => {
    const key = c.req.param('key');
    if (UUID.test(key)) return answer({ status: 404, body: 'not found' });
    return answer(await pinger(c).bySlug(key, c.req.param('slug'), await inputOf(c, c.req.param('suffix'))));
  });
}
