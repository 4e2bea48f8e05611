import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

/** The session's CSRF token: derived from the cookie secret, so nothing more is stored and it dies with the session. */
export function csrfTokenFor(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('alertbridge-csrf').digest('base64url');
}

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isStateChanging(method: string): boolean {
  return STATE_CHANGING.has(method.toUpperCase());
}

/**
 * The first wall: the request must come from our own pages. Origin must equal
 * PUBLIC_URL's origin; a browser that sends no Origin must say
 * Sec-Fetch-Site: same-origin. Anything else (another site, a missing or
 * `null` Origin) is refused. Applies to sign-in forms too (login CSRF).
 */
export function sameOrigin(c: Context, expectedOrigin: string): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) return origin === expectedOrigin;
  return c.req.header('sec-fetch-site') === 'same-origin';
}

/**
 * The second wall, for cookie-authenticated requests: the per-session token in
 * a form field or the X-CSRF-Token header (htmx and JSON bodies).
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
