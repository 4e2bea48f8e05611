import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { FLASH_TTL_MS } from '../../domain/auth/flashes.js';
import type { DashboardDeps } from '../deps.js';
import { FLASH_PARAM, flashSchema, type Flash } from './flash.js';

/**
 * Post/Redirect/Get for forms that need no session (an e-mail's unsubscribe and action buttons):
 * the result is sealed (src/domain/auth/browser-flashes.ts) under a server key and a random key
 * that lives only in a short-lived cookie of this browser. The URL carries the sealed result, which
 * nobody can open or write without both; the cookie goes when the page is read, so a reload or a
 * copied URL shows nothing, and the GET never acts.
 */
type Deps = Pick<DashboardDeps, 'services' | 'secureCookies'>;
const cookieName = (deps: Deps) => (deps.secureCookies ? '__Host-ab_flash' : 'ab_flash');

/** 303 to `path` (a path of this site) carrying `flash` for this browser only. */
export function redirectWithBrowserFlash(c: Context, deps: Deps, path: string, flash: Flash): Response {
  const { browserKey, sealed } = deps.services.browserFlashes.seal(flashSchema.parse(flash));
  setCookie(c, cookieName(deps), browserKey, { httpOnly: true, sameSite: 'Lax', path: '/', secure: deps.secureCookies, maxAge: Math.floor(FLASH_TTL_MS / 1000) });
  return c.redirect(`${path}?${new URLSearchParams({ [FLASH_PARAM]: sealed })}`, 303);
}

/** The flash this GET carries, once: undefined on a reload (the cookie is gone), from another browser, or when changed. */
export function takeBrowserFlash(c: Context, deps: Deps): Flash | undefined {
  const sealed = c.req.method === 'GET' ? c.req.query(FLASH_PARAM) : undefined;
  const key = getCookie(c, cookieName(deps));
  if (!key) return undefined;
  deleteCookie(c, cookieName(deps), { path: '/', secure: deps.secureCookies });
  if (!sealed) return undefined;
  const parsed = flashSchema.safeParse(deps.services.browserFlashes.open(key, sealed));
  return parsed.success ? parsed.data : undefined;
}
