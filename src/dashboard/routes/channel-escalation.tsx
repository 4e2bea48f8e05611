import { type Context, Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { formOf, requireRole } from '../http/session.js';
import { ESCALATION_FIELDS, THEN_FIELD, type EscalationView } from '../pages/channel-escalation.js';
import type { SettingsExtra } from '../pages/channels.js';
import type { ChannelRecord } from '../ports.js';

const MANAGERS = ['owner', 'admin'] as const;
/** The use case's field names (its errors' paths) → the form's. */
const FIELD_OF: Record<string, string> = {
  minLevel: ESCALATION_FIELDS.minLevel,
  after: ESCALATION_FIELDS.after,
  every: ESCALATION_FIELDS.every,
  times: ESCALATION_FIELDS.times,
  then: ESCALATION_FIELDS.then,
};

/** The channel's escalation policy for its settings page (owners and admins only), or null for none. */
export async function escalationView(deps: DashboardDeps, channelId: string): Promise<EscalationView | null> {
  const { escalations } = deps.services.escalation;
  const policy = await escalations.get(channelId);
  return policy ? await escalations.json(policy) : null;
}

/**
 * Escalation per channel from its settings (Post/Redirect/Get): save replaces the policy, clear
 * removes it. A refused value re-renders the page with the error next to its field; the admin CLI's
 * `channel set-escalation` runs the same use case.
 */
export function channelEscalationRoutes(
  deps: DashboardDeps,
  own: { visibleChannel(c: Context<DashEnv>): Promise<ChannelRecord | undefined>; settings(c: Context<DashEnv>, ch: ChannelRecord, extra?: SettingsExtra): Promise<Response> },
): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { escalations } = deps.services.escalation;

  r.post('/channels/:id/escalation', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const ch = await own.visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    const members = await deps.accounts.listMembers(ws.id);
    const f = ESCALATION_FIELDS;
    try {
      await escalations.set({
        channel: ch.id,
        minLevel: form[f.minLevel] ?? '',
        after: form[f.after] ?? '',
        every: form[f.every] ?? '',
        times: form[f.times] ?? '',
        then: members.filter((m) => form[`${THEN_FIELD}${m.id}`] === 'on').map((m) => m.id),
        actorId: c.get('viewer').id,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid-body') throw err;
      const issues = err.extensions.details as { path: (string | number)[] }[] | undefined;
      const field = FIELD_OF[String(issues?.[0]?.path[0])] ?? f.after;
      return own.settings(c, ch, { errors: { [field]: err.detail ?? err.message }, values: form });
    }
    await audit(c, deps, 'channel.escalation-set', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `Escalation of “${ch.name}” saved.` });
  });

  r.post('/channels/:id/escalation/clear', async (c) => {
    requireRole(c, MANAGERS);
    const ch = await own.visibleChannel(c);
    if (!ch) return c.notFound();
    const removed = await escalations.clear(ch.id);
    if (removed) await audit(c, deps, 'channel.escalation-cleared', `${ch.name} (${ch.id})`);
    return redirectWithFlash(c, `/channels/${ch.id}`, { notice: removed ? `Escalation of “${ch.name}” turned off.` : `“${ch.name}” had no escalation.` });
  });
  return r;
}
