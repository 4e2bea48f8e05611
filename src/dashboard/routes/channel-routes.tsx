import { type Context, Hono } from 'hono';
import type { AlertLevel } from '../../domain/alert-rows.js';
import { AppError } from '../../domain/errors.js';
import { ROUTE_EVENTS, ROUTE_KINDS, type RouteKind } from '../../domain/routes/route-kinds.js';
import type { FieldMatch } from '../../domain/routes/route-rows.js';
import type { RouteInput, RouteView } from '../../domain/routes/routes.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { formOf, requireRole } from '../http/session.js';
import { newRoutePage, routeName, routePage } from '../pages/channel-routes.js';
import { eventField, formValuesOf, targetFrom, type RouteFormErrors, type RouteFormValues } from '../pages/route-form.js';
import type { ChannelRecord } from '../ports.js';

const MANAGERS = ['owner', 'admin'] as const;
const LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];
/** The receiver's answer as the test shows it: enough to read an error, not a page of HTML. */
const ANSWER_CHARS = 400;

/** A form the domain cannot take, with the field it is about. */
class FormRefusal extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/** The filters as the use case takes them; a line that is not label=value is the fields box's error. */
function filtersFrom(form: RouteFormValues): RouteInput {
  const level = form.minLevel ?? 'INFO';
  if (!LEVELS.includes(level as AlertLevel)) throw new FormRefusal('minLevel', 'Choose a level');
  const fields: FieldMatch[] = [];
  for (const line of (form.fields ?? '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    if (at <= 0) throw new FormRefusal('fields', `Write each as label=value, not “${line.slice(0, 60)}”`);
    fields.push({ label: line.slice(0, at).trim(), value: line.slice(at + 1).trim() });
  }
  const rate = (form.ratePerMinute ?? '').trim();
  return {
    minLevel: level as AlertLevel,
    events: ROUTE_EVENTS.filter((e) => form[eventField(e)] === 'on'),
    source: (form.source ?? '').trim() || null,
    fields,
    ...(rate ? { ratePerMinute: /^\d{1,4}$/.test(rate) ? Number(rate) : NaN } : {}),
  };
}

/** A refusal (ours or the domain's) as the message beside its field; anything else is not the form's. */
function errorsOf(err: unknown): RouteFormErrors | null {
  if (err instanceof FormRefusal) return { [err.field]: err.message };
  if (!(err instanceof AppError)) return null;
  if (err.code === 'storage-unavailable') return { form: err.detail ?? err.message };
  if (err.code !== 'invalid-body') return null;
  const field = String((err.extensions.details as { path?: unknown[] }[] | undefined)?.[0]?.path?.[0] ?? 'form');
  const message = (err.detail ?? err.message).replace(new RegExp(`^${field} `), '');
  return { [field]: message.replace(/^./, (ch) => ch.toUpperCase()) };
}

/**
 * Outbound routes in channel settings (docs/routes.md), for owners and admins: add (per-kind
 * target), change filters, replace the target, test, pause, resume and delete. Every form is
 * Post/Redirect/Get; a refused one is shown again with the error beside its field, storing nothing.
 * A `webhook` route's secret and a test's answer reach the next page through the session's flash.
 */
export function channelRouteRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const { routes, preview } = deps.services.routes;
  const r = new Hono<DashEnv>();
  // Mounted by channelRoutes, whose session middleware covers /channels/*.

  /** The channel, for a manager who can see it (a private one they are not in is "not found"). */
  const channelOf = async (c: Context<DashEnv>): Promise<ChannelRecord | undefined> => {
    const ws = requireRole(c, MANAGERS);
    const id = c.req.param('id');
    return (await deps.accounts.visibleChannels(ws.id, c.get('viewer').id)).find((ch) => ch.id === id);
  };
  /** The channel and one of its routes (a route of another channel is "not found"). */
  const routeOf = async (c: Context<DashEnv>): Promise<{ ch: ChannelRecord; route: RouteView } | undefined> => {
    const ch = await channelOf(c);
    if (!ch) return undefined;
    const route = (await routes.list(ch.id)).find((x) => x.id === c.req.param('rid'));
    return route ? { ch, route } : undefined;
  };
  const kindOf = (raw: string | undefined): RouteKind | null => (ROUTE_KINDS as readonly string[]).includes(raw ?? '') ? (raw as RouteKind) : null;
  const previewOf = (kind: RouteKind, ch: ChannelRecord) => preview(kind, { id: ch.id, slug: ch.slug, name: ch.name });
  const showRoute = (c: Context<DashEnv>, ch: ChannelRecord, route: RouteView, values?: RouteFormValues, errors: RouteFormErrors = {}) =>
    routePage(c, { channel: ch, route, values: values ?? formValuesOf(route), errors, preview: previewOf(route.kind, ch) }, Object.keys(errors).length ? 400 : 200);
  const back = (ch: ChannelRecord, route?: RouteView) => (route ? `/channels/${ch.id}/routes/${route.id}` : `/channels/${ch.id}#routes-title`);

  r.get('/channels/:id/routes/new', async (c) => {
    const ch = await channelOf(c);
    if (!ch) return c.notFound();
    const kind = kindOf(c.req.query('kind'));
    // A new route forwards openings and resolutions unless told otherwise (the CLI's default).
    const values = { [eventField('alert.opened')]: 'on', [eventField('alert.resolved')]: 'on' };
    return newRoutePage(c, { channel: ch, kind, values, errors: {}, preview: kind ? previewOf(kind, ch) : null });
  });

  r.post('/channels/:id/routes', async (c) => {
    const ch = await channelOf(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    const kind = kindOf(form.kind);
    if (!kind) return newRoutePage(c, { channel: ch, kind: null, values: form, errors: {}, preview: null }, 400);
    try {
      const created = await routes.create(ch.id, kind, targetFrom(kind, form), filtersFrom(form));
      const route = await routes.get(created.id);
      await audit(c, deps, 'route.created', `${routeName(route)} (${route.id}) on ${ch.name}`);
      return redirectWithFlash(c, back(ch, route), {
        notice: `${routeName(route)} added. Send a test alert to check it.`,
        ...(created.secret ? { routeSecret: { routeId: route.id, secret: created.secret } } : {}),
      });
    } catch (err) {
      const errors = errorsOf(err);
      if (!errors) throw err;
      return newRoutePage(c, { channel: ch, kind, values: form, errors, preview: previewOf(kind, ch) }, 400);
    }
  });

  r.get('/channels/:id/routes/:rid', async (c) => {
    const found = await routeOf(c);
    return found ? showRoute(c, found.ch, found.route) : c.notFound();
  });

  r.post('/channels/:id/routes/:rid/filters', async (c) => {
    const found = await routeOf(c);
    if (!found) return c.notFound();
    const form = await formOf(c);
    try {
      const route = await routes.update(found.route.id, filtersFrom(form));
      await audit(c, deps, 'route.changed', `${routeName(route)} (${route.id}): filters`);
      return redirectWithFlash(c, back(found.ch, route), { notice: `Filters of ${routeName(route)} saved.` });
    } catch (err) {
      const errors = errorsOf(err);
      if (!errors) throw err;
      return showRoute(c, found.ch, found.route, form, errors);
    }
  });

  r.post('/channels/:id/routes/:rid/target', async (c) => {
    const found = await routeOf(c);
    if (!found) return c.notFound();
    const form = await formOf(c);
    try {
      const route = await routes.update(found.route.id, { target: targetFrom(found.route.kind, form) });
      await audit(c, deps, 'route.changed', `${routeName(route)} (${route.id}): target`);
      return redirectWithFlash(c, back(found.ch, route), { notice: `Target replaced: now ${routeName(route)}.` });
    } catch (err) {
      const errors = errorsOf(err);
      if (!errors) throw err;
      return showRoute(c, found.ch, found.route, { ...formValuesOf(found.route), ...form }, errors);
    }
  });

  r.post('/channels/:id/routes/:rid/test', async (c) => {
    const found = await routeOf(c);
    if (!found) return c.notFound();
    const { route } = found;
    let answer;
    try {
      answer = await routes.test(route.id);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'storage-unavailable') throw err;
      answer = { ok: false, status: null, body: '', error: err.detail ?? err.message };
    }
    await audit(c, deps, 'route.tested', `${routeName(route)} (${route.id}): ${answer.status ?? answer.error ?? 'no answer'}`);
    return redirectWithFlash(c, back(found.ch, route), {
      routeTest: { routeId: route.id, ok: answer.ok, status: answer.status, body: answer.body.slice(0, ANSWER_CHARS), error: answer.error?.slice(0, ANSWER_CHARS) ?? null },
    });
  });

  for (const [path, state, word] of [['pause', 'paused', 'paused'], ['resume', 'active', 'resumed']] as const) {
    r.post(`/channels/:id/routes/:rid/${path}`, async (c) => {
      const found = await routeOf(c);
      if (!found) return c.notFound();
      const route = await routes.update(found.route.id, { state });
      await audit(c, deps, `route.${word}`, `${routeName(route)} (${route.id})`);
      const notice = state === 'active' ? `${routeName(route)} resumed: its waiting deliveries go out now.` : `${routeName(route)} paused.`;
      // Resuming from the settings list lands back there; from the route's page, on it.
      const from = (await formOf(c)).from === 'settings' ? back(found.ch) : back(found.ch, route);
      return redirectWithFlash(c, from, { notice });
    });
  }

  r.post('/channels/:id/routes/:rid/delete', async (c) => {
    const found = await routeOf(c);
    if (!found) return c.notFound();
    await routes.remove(found.route.id);
    await audit(c, deps, 'route.deleted', `${routeName(found.route)} (${found.route.id}) on ${found.ch.name}`);
    return redirectWithFlash(c, back(found.ch), { notice: `Route ${routeName(found.route)} deleted, with its deliveries.` });
  });

  return r;
}
