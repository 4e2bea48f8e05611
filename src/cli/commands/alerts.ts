import type { LifecycleRequest } from '../../domain/alert-lifecycle.js';
import { parseDuration } from '../../lib/duration.js';
import type { AdminServices } from '../../services/admin.js';
import { defineCommand, UsageError, type Command } from '../command.js';
import { notFound } from '../../domain/errors.js';

/** `--alert A` (or `--id A`, as `alert delete` takes it) and `--as EMAIL`: who acts on which alert. */
const ACT_FLAGS = {
  alert: { type: 'string', value: 'A' },
  id: { type: 'string', value: 'A' },
  as: { type: 'string', value: 'EMAIL', required: true },
} as const;

/** Applies `request` as the person `email` (a member who can see the alert), recorded as "via cli"; prints the alert's lifecycle. */
async function actAs(ctx: AdminServices, f: { alert: string | undefined; id: string | undefined; as: string }, request: LifecycleRequest) {
  const alertId = f.alert ?? f.id;
  if (!alertId) throw new UsageError('--alert A is required');
  if (f.alert && f.id && f.alert !== f.id) throw new UsageError('give --alert or --id, not both');
  const user = await (await ctx.accounts()).findUser(f.as);
  if (!user) throw notFound('user');
  const { actions, memberOf } = await ctx.alertActions();
  const p = await actions.principalFor(user.id, alertId, memberOf, 'cli');
  const changed = await actions.change(p, alertId, request, 'cli');
  const history = await actions.history(p, alertId);
  const last = history[history.length - 1];
  return { id: alertId, changed, as: { id: user.id, name: user.name }, last: last ? { action: last.action, at: new Date(last.createdAt).toISOString() } : null };
}

function snoozeRequest(forText: string | undefined, until: string | undefined, now: number): LifecycleRequest {
  if ((forText === undefined) === (until === undefined)) throw new UsageError('give one of --for D (30m, 2h, 1d) or --until ISO');
  if (forText !== undefined) {
    const ms = parseDuration(forText);
    if (ms === undefined) throw new UsageError('--for must be an integer and a unit: 30s, 10m, 2h, 1d');
    return { snoozedUntil: now + ms };
  }
  const t = Date.parse(until!);
  if (!/^\d{4}-\d\d-\d\dT/.test(until!) || Number.isNaN(t)) throw new UsageError('--until must be an ISO 8601 date-time, e.g. 2026-03-02T09:00:00Z');
  return { snoozedUntil: t };
}

/** Moderating stored alerts, and acting on them as a person. */
export const alertCommands: Command[] = [
  defineCommand({
    name: 'alert delete',
    summary: 'delete one alert with its files (open dashboards and streams drop it at once)',
    flags: { id: { type: 'string', value: 'A', required: true } },
    run: async (ctx, f) => (await ctx.alertDeletion()).deleteAlert(f.id),
  }),
  defineCommand({
    name: 'alert ack',
    summary: 'acknowledge an alert as a member who can see it',
    flags: ACT_FLAGS,
    run: (ctx, f) => actAs(ctx, f, { status: 'acknowledged' }),
  }),
  defineCommand({
    name: 'alert resolve',
    summary: 'resolve an alert as a member who can see it',
    flags: ACT_FLAGS,
    run: (ctx, f) => actAs(ctx, f, { status: 'resolved' }),
  }),
  defineCommand({
    name: 'alert reopen',
    summary: 'reopen an acknowledged or resolved alert as a member who can see it',
    flags: ACT_FLAGS,
    run: (ctx, f) => actAs(ctx, f, { status: 'open' }),
  }),
  defineCommand({
    name: 'alert snooze',
    summary: 'snooze an alert for a while (--for 2h) or until a time (--until ISO)',
    flags: { ...ACT_FLAGS, for: { type: 'string', value: 'D' }, until: { type: 'string', value: 'ISO' } },
    run: (ctx, f) => actAs(ctx, f, snoozeRequest(f.for, f.until, ctx.clock.now())),
  }),
];
