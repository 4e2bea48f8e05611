import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/** Responses that already carry the request's X-Request-Id: request-context.ts leaves their headers alone. */
const carriesRequestId = new WeakSet<Response>();

export function hasRequestId(res: Response): boolean {
  return carriesRequestId.has(res);
}

/**
 * A JSON answer whose headers are a plain object, X-Request-Id included.
 * @hono/node-server writes a plain header object as it is, while headers set
 * through `c.header()` live in a web `Headers` that it copies and sorts
 * before writing (docs/benchmarks.md: the webhook's 201 and the read API's
 * pages are built this way). Names are lower case, as `Headers` sends them.
 * A large body is better given as bytes (`Buffer.from(json)`): encoded once,
 * outside the JavaScript heap, where a string is measured and encoded
 * separately (and copied once more by a web `Response`).
 */
export function plainJson(c: Context<AppEnv>, status: number, json: string | Uint8Array<ArrayBuffer>, headers?: Record<string, string>): Response {
  const res = new Response(json, { status, headers: { 'content-type': 'application/json', 'x-request-id': c.get('requestId'), ...headers } });
  carriesRequestId.add(res);
  return res;
}
