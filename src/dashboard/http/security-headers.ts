import type { MiddlewareHandler } from 'hono';

/**
 * The dashboard's one policy: scripts, styles and fonts only from the service
 * itself, no inline script or style (so injected markup cannot run), never
 * framed, forms only to ourselves.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function applySecurityHeaders(headers: Headers): void {
  headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Referrer-Policy', 'same-origin');
  headers.set('X-Frame-Options', 'DENY');
}

/** Every dashboard response (pages, redirects, assets, errors). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  applySecurityHeaders(c.res.headers);
  // Pages show per-user data (and sometimes a secret shown once): never cached.
  if (c.res.headers.get('content-type')?.startsWith('text/html')) c.res.headers.set('Cache-Control', 'no-store');
};
