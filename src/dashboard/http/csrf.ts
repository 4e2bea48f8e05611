import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

/** The session's CSRF token: derived from the cookie secret, so nothing more is stored and it dies with the session. */
export function csrfTokenFor(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('alertbridge-csrf').digest('base64url');
}

/**
 * A token for one GET that starts something (linking an OpenID account): it travels in a URL, so it is
 * derived for that purpose only and a copy in the history or a log cannot pass as the forms' token.
 */
export const OIDC_LINK_PURPOSE = 'oidc-link';

export function linkTokenFor(sessionSecret: string, purpose: string): string {
  return createHmac('sha256', sessionSecret).update(`alertbridge-link:${purpose}`).digest('base64url');
}

export function linkTokenMatches(presented: string | undefined, sessionSecret: string, purpose: string): boolean {
  const want = Buffer.from(linkTokenFor(sessionSecret, purpose));
  const got = Buffer.from(presented ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
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
 * The token as one response carries it: a fresh random pad followed by the
 * token XOR the pad. Every masking verifies, but no two responses carry the
 * same bytes, so a compressed page that also reflects input (the search query,
 * an alert's text) leaks nothing about the token through its size (BREACH).
 */
export function maskToken(token: string): string {
  const raw = Buffer.from(token, 'base64url');
  const pad = randomBytes(raw.length);
  const masked = Buffer.alloc(raw.length);
  for (let i = 0; i < raw.length; i++) masked[i] = raw[i]! ^ pad[i]!;
  return Buffer.concat([pad, masked]).toString('base64url');
}

/**
 * The second wall, for cookie-authenticated requests: the per-session token
 * (any masking of it, see maskToken) in a form field or the X-CSRF-Token
 * header (htmx and JSON bodies).
 */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented || !/^[A-Za-z0-9_-]{1,200}$/.test(presented)) return false;
  const want = Buffer.from(expected, 'base64url');
  const got = Buffer.from(presented, 'base64url');
  if (got.length !== want.length * 2) return false;
  const unmasked = Buffer.alloc(want.length);
  for (let i = 0; i < want.length; i++) unmasked[i] = got[i]! ^ got[i + want.length]!;
  return timingSafeEqual(unmasked, want);
}
