import type { Context } from 'hono';
import { z } from 'zod';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from './env.js';

/**
 * What a form's POST hands to the page it redirects to (Post/Redirect/Get): a notice naming what was
 * done, and the one-time results shown only there. Sealed per session by src/domain/auth/flashes.ts.
 */
export const flashSchema = z.object({
  /** "Token “CI deploy script” revoked." */
  notice: z.string().max(500).optional(),
  tone: z.enum(['ok', 'warn']).optional(),
  /** A new API token: its only appearance. */
  token: z.object({ name: z.string(), token: z.string() }).optional(),
  /** The webhook URL was just rotated: show the new one open. */
  revealWebhook: z.boolean().optional(),
  /** An invitation link that was not e-mailed (mail off, or the send failed). */
  invitation: z.object({ email: z.string(), url: z.string(), expiresAt: z.number(), mailFailed: z.boolean() }).optional(),
  /** A new `webhook` route's signing secret: its only appearance. */
  routeSecret: z.object({ routeId: z.string(), secret: z.string() }).optional(),
  /** What the receiver answered a route's test send. */
  routeTest: z.object({ routeId: z.string(), ok: z.boolean(), status: z.number().nullable(), body: z.string(), error: z.string().nullable() }).optional(),
  /** What a sessionless button did (unsubscribe, an e-mail's Acknowledge): the "done" page's words and its way on. */
  done: z.object({ heading: z.string().max(500), text: z.string().max(500).optional(), link: z.object({ href: z.string().regex(/^\/(?!\/)/), label: z.string().max(200) }).optional() }).optional(),
});
export type Flash = z.infer<typeof flashSchema>;

/** The query parameter that names the flash a page should show. */
export const FLASH_PARAM = 'flash';

/** 303 to `path` (a path of this site) carrying `flash`, for the signed-in viewer's session only. */
export function redirectWithFlash(c: Context<DashEnv>, path: string, flash: Flash): Promise<Response> {
  return redirectWithFlashFor(c, c.get('dash'), c.get('sessionSecret'), path, flash);
}

/** The same for a session begun by this very request (an accepted invitation): its cookie secret given. */
export async function redirectWithFlashFor(c: Context, deps: Pick<DashboardDeps, 'flashes'>, sessionSecret: string, path: string, flash: Flash): Promise<Response> {
  const id = await deps.flashes.put(sessionSecret, flashSchema.parse(flash));
  const url = new URL(path, 'http://local');
  url.searchParams.set(FLASH_PARAM, id);
  return c.redirect(`${url.pathname}${url.search}${url.hash}`, 303);
}

/**
 * Takes the flash a GET names (deleting it), for the page to show: set as the `flash` variable.
 * A reload finds nothing: the result is gone, and so is any chance of showing a secret twice.
 */
export async function loadFlash(c: Context<DashEnv>, deps: DashboardDeps, sessionSecret: string): Promise<void> {
  const id = c.req.method === 'GET' ? c.req.query(FLASH_PARAM) : undefined;
  if (!id) return;
  const parsed = flashSchema.safeParse(await deps.flashes.take(sessionSecret, id));
  if (parsed.success) c.set('flash', parsed.data);
}

/** The flash of this request, if the page was reached through one. */
export const flashOf = (c: Context<DashEnv>): Flash | undefined => c.get('flash');
