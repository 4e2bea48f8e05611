import type { Context } from 'hono';
import { Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import type { HeartbeatCheck } from '../../domain/heartbeats/ports.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { HeartbeatTable, heartbeatPage, heartbeatsPage, type CheckRow, type HeartbeatForm, type HeartbeatFormErrors } from '../pages/heartbeats.js';
import { sessionPrincipal } from './feed.js';

const MANAGERS = ['owner', 'admin'] as const;
const STRIP = 50;

/**
 * Heartbeat checks (docs/heartbeats.md): everyone sees the checks of the channels they can see;
 * owners and admins create, pause, resume and delete them. Forms are Post/Redirect/Get; a refused
 * create is shown again with the error next to its field.
 */
export function heartbeatRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const { services } = deps;
  const checks = services.heartbeats.checks;
  const r = new Hono<DashEnv>();
  for (const p of ['/heartbeats', '/heartbeats/*']) r.use(p, requireSession(deps));

  const visible = async (c: Context<DashEnv>) => {
    const channels = await services.readApi.listChannels(sessionPrincipal(c));
    return { channels, names: new Map(channels.map((ch) => [ch.id, `#${ch.slug}`])) };
  };
  const rowsOf = async (c: Context<DashEnv>) => {
    const ws = requireRole(c);
    const { channels, names } = await visible(c);
    const rows: CheckRow[] = [];
    for (const check of await checks.ofWorkspace(ws.id)) {
      const channel = names.get(check.channelId);
      if (channel) rows.push({ check, channel, pings: await checks.pings(check.id, STRIP) });
    }
    return { rows, channels, manager: isManager(ws.role), now: services.clock.now() };
  };
  /** A check of this workspace in a channel the viewer sees, else not found. */
  const visibleCheck = async (c: Context<DashEnv>): Promise<{ check: HeartbeatCheck; channel: string } | undefined> => {
    const ws = requireRole(c);
    const check = await checks.require(c.req.param('id') ?? '').catch(() => undefined);
    const channel = check && check.workspaceId === ws.id ? (await visible(c)).names.get(check.channelId) : undefined;
    return check && channel ? { check, channel } : undefined;
  };

  r.get('/heartbeats', async (c) => heartbeatsPage(c, { ...(await rowsOf(c)), form: {} }));
  r.get('/heartbeats/table', async (c) => {
    const o = await rowsOf(c);
    return c.html(<HeartbeatTable rows={o.rows} now={o.now} />);
  });

  r.post('/heartbeats', async (c) => {
    requireRole(c, MANAGERS);
    const form = (await formOf(c)) as HeartbeatForm;
    const o = await rowsOf(c);
    try {
      if (!o.channels.some((ch) => ch.id === form.channel)) throw new AppError('not-found', 'channel');
      const cron = form.cron?.trim() || undefined;
      const created = await checks.create({
        channelId: form.channel!,
        name: form.name ?? '',
        slug: form.slug?.trim() || undefined,
        period: cron ? undefined : form.period?.trim() || undefined,
        cron,
        tz: cron ? form.tz?.trim() : undefined,
        grace: form.grace?.trim() || undefined,
      });
      await audit(c, deps, 'heartbeat.created', `${created.id}: ${created.name}`);
      return redirectWithFlash(c, `/heartbeats/${created.id}`, { notice: 'Check created. Add its ping URL to the job.' });
    } catch (err) {
      if (!(err instanceof AppError) || !['invalid-body', 'not-found', 'slug-taken', 'channel-is-chat-connected'].includes(err.code)) throw err;
      return heartbeatsPage(c, { ...o, form, errors: formErrors(err) }, 400);
    }
  });

  r.get('/heartbeats/:id', async (c) => {
    const found = await visibleCheck(c);
    if (!found) return c.notFound();
    const ws = requireRole(c);
    return heartbeatPage(c, {
      ...found,
      pings: await checks.pings(found.check.id, 100),
      now: services.clock.now(),
      manager: isManager(ws.role),
      pingKey: await checks.pingKey(ws.id),
      publicUrl: services.config.publicUrl,
    });
  });

  for (const action of ['pause', 'resume', 'delete'] as const) {
    r.post(`/heartbeats/:id/${action}`, async (c) => {
      requireRole(c, MANAGERS);
      const found = await visibleCheck(c);
      if (!found) return c.notFound();
      const id = found.check.id;
      if (action === 'pause') await checks.pause(id);
      else if (action === 'resume') await checks.resume(id);
      else await checks.remove(id);
      await audit(c, deps, `heartbeat.${action}d`, `${id}: ${found.check.name}`);
      const notice = { pause: 'Check paused: no alert until it is pinged or resumed.', resume: 'Check resumed: new until its next ping.', delete: 'Check deleted. Its alerts stay in the channel.' }[action];
      return redirectWithFlash(c, action === 'delete' ? '/heartbeats' : `/heartbeats/${id}`, { notice });
    });
  }
  return r;
}

/** A domain refusal as the message beside its field. */
function formErrors(err: AppError): HeartbeatFormErrors {
  const message = (err.detail ?? err.message).replace(/^./, (ch) => ch.toUpperCase());
  if (err.code === 'not-found' || err.code === 'channel-is-chat-connected') return { channel: err.code === 'not-found' ? 'Choose a channel you can see' : message };
  if (err.code === 'slug-taken' || /^Slug/.test(message)) return { slug: message };
  if (/^Name/.test(message)) return { name: message };
  if (/^Grace/.test(message)) return { grace: message };
  if (/cron|five fields/i.test(message)) return { cron: message };
  if (/time zone/i.test(message)) return { tz: message };
  return { period: message };
}
