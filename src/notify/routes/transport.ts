import type { Agent } from 'undici';
import { loadUndici } from '../../lib/undici-lazy.js';
import { refusedRouteUrl } from '../../domain/routes/route-kinds.js';
import { guardedLookup } from '../push/transport.js';
import type { OutboundRequest } from './formats/index.js';

/** One route request, connect to last byte. */
export const ROUTE_TIMEOUT_MS = 10_000;
/** What a delivery log keeps of an answer, and what a test shows. */
const ANSWER_CHARS = 2_000;

export type RouteAnswer =
  | { ok: true; status: number; body: string }
  | { ok: false; status: number | null; body: string; error: string; retry: boolean; retryAfterMs: number | null };

export interface RouteTransport {
  send(req: OutboundRequest): Promise<RouteAnswer>;
  close(): Promise<void>;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Route requests through the SSRF guard: the URL's shape and literal addresses are checked here, every
 * resolved address at connect time (guardedLookup: no second, rebindable lookup), and redirects are
 * never followed (undici's request follows none). Errors name the host, never the URL, which may
 * carry a token.
 */
export function createRouteTransport(o: { allowPrivate: boolean; now: () => number; timeoutMs?: number }): RouteTransport {
  const timeout = o.timeoutMs ?? ROUTE_TIMEOUT_MS;
  // Made on the first send: undici is loaded then, not at start.
  let agent: Agent | undefined;
  return {
    async send(req) {
      const refused = refusedRouteUrl(req.url, o.allowPrivate);
      const host = URL.canParse(req.url) ? new URL(req.url).host : 'the target';
      if (refused) return { ok: false, status: null, body: '', error: `target URL ${refused}`, retry: false, retryAfterMs: null };
      try {
        const { Agent, request } = await loadUndici();
        agent ??= new Agent({ connect: { timeout, lookup: guardedLookup(o.allowPrivate) }, keepAliveTimeout: 30_000 });
        const res = await request(req.url, {
          method: req.method, headers: { 'user-agent': 'Alertbridge-routes/1', ...req.headers }, body: req.body,
          dispatcher: agent, headersTimeout: timeout, bodyTimeout: timeout, signal: AbortSignal.timeout(timeout),
        });
        const body = (await res.body.text()).slice(0, ANSWER_CHARS);
        const status = res.statusCode;
        if (status >= 200 && status < 300) return { ok: true, status, body };
        const retry = status === 429 || status >= 500;
        const error = status >= 300 && status < 400 ? `${host} answered ${status} (redirects are not followed)` : `${host} answered ${status}`;
        return { ok: false, status, body, error, retry, retryAfterMs: retryAfterMs(res.headers['retry-after'], o.now()) };
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        const code = e.cause?.code ?? e.code ?? e.name;
        const refusedAddress = code === 'EREFUSEDADDRESS';
        const error = refusedAddress ? `${host} resolves to a refused address (private, loopback or link-local)` : `${host}: network error (${code})`;
        return { ok: false, status: null, body: '', error, retry: !refusedAddress, retryAfterMs: null };
      }
    },
    close: async () => {
      await agent?.close();
    },
  };
}
