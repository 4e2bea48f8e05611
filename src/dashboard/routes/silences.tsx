import type { Context } from 'hono';
import { Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { silencesPage, type SilenceForm } from '../pages/silences.js';
import { sessionPrincipal } from './feed.js';

const MANAGERS = ['owner', 'admin'] as const;
/** The form's fields, in the order a person fills them: where a domain error's path points. */
const FORM_FIELDS = ['channel', 'level', 'source', 'titleContains', 'fields', 'for', 'until', 'weekly', 'timeZone', 'comment'] as const;

/**
 * Silences and maintenance windows (docs/silences.md): everyone sees the list, owners and admins
 * create and expire them. Every form is Post/Redirect/Get; a refused one is shown again with the
 * error next to its field, and stores nothing.
 */
export function silenceRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const { services } = deps;
  const r = new Hono<DashEnv>();
  for (const p of ['/silences', '/silences/*']) r.use(p, requireSession(deps));

  const view = async (c: Context<DashEnv>) => {
    const ws = requireRole(c);
    const channels = await services.readApi.listChannels(sessionPrincipal(c));
    return { silences: await services.silences.list(ws.id), channels, now: services.clock.now(), manager: isManager(ws.role) };
  };

  r.get('/silences', async (c) => silencesPage(c, { ...(await view(c)), form: {} }));

  /** "Silence alerts like this": the form prefilled from one alert the viewer can see (channel, level, source, title, fields). */
  r.get('/silences/new', async (c) => {
    requireRole(c, MANAGERS);
    const alertId = c.req.query('alert');
    let form: SilenceForm = {};
    if (alertId) {
      const alert = await services.readApi.getAlert(sessionPrincipal(c), alertId);
      form =
        'title' in alert
          ? {
              channel: alert.channelId,
              level: alert.level,
              source: alert.source ?? '',
              titleContains: alert.title,
              fields: alert.fields.map((f) => `${f.label}=${f.value}`).join('\n'),
              for: '2h',
            }
          : { channel: alert.channelId, for: '2h' };
    }
    return silencesPage(c, { ...(await view(c)), form, focusForm: true });
  });

  r.post('/silences', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const form = (await formOf(c)) as SilenceForm;
    try {
      const created = await services.silences.create({
        workspaceId: ws.id,
        channel: form.channel || undefined,
        level: form.level || undefined,
        source: form.source,
        titleContains: form.titleContains,
        fields: (form.fields ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean),
        for: form.for?.trim() || undefined,
        until: form.until?.trim() || undefined,
        weekly: form.weekly?.trim() || undefined,
        timeZone: form.weekly?.trim() ? form.timeZone?.trim() : undefined,
        comment: form.comment ?? '',
        actor: c.get('viewer').id,
      });
      await audit(c, deps, 'silence.created', `${created.id}: ${created.comment}`);
      return redirectWithFlash(c, '/silences', { notice: 'Silence created. Matching alerts notify nobody while it holds.' });
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'invalid-body' && err.code !== 'not-found')) throw err;
      return silencesPage(c, { ...(await view(c)), form, errors: formErrors(err), focusForm: true }, 400);
    }
  });

  r.post('/silences/:id/expire', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const silence = await services.silences.byId(c.req.param('id'));
    if (!silence || silence.workspaceId !== ws.id) return c.notFound();
    await services.silences.expire(silence.id, c.get('viewer').id);
    await audit(c, deps, 'silence.expired', `${silence.id}: ${silence.comment}`);
    return redirectWithFlash(c, '/silences', { notice: 'Silence expired. Matching alerts notify again.' });
  });

  return r;
}

/** A domain refusal as the message beside its field (a look-up failure is about the channel). */
function formErrors(err: AppError): Partial<Record<(typeof FORM_FIELDS)[number] | 'schedule', string>> {
  if (err.code === 'not-found') return { channel: 'Choose a channel of this workspace' };
  const path = (err.extensions.details as { path?: unknown[] }[] | undefined)?.[0]?.path?.[0];
  const field = FORM_FIELDS.find((f) => f === path) ?? 'schedule';
  const message = (err.detail ?? err.message).replace(/^./, (ch) => ch.toUpperCase());
  return { [field]: message };
}
