import { Hono } from 'hono';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { isManager, requireRole, requireSession } from '../http/session.js';
import { usagePage } from '../pages/usage.js';
import { usageMonth } from '../../lib/iso-time.js';

const DAY = 86_400_000;
export const CHART_DAYS = 30;

/** Per-month totals over the given channels only, newest month first. */
function sumByMonth(rows: { month: string; channelId: string; count: number }[], channels: Set<string>) {
  const months = new Map<string, number>();
  for (const r of rows) if (channels.has(r.channelId)) months.set(r.month, (months.get(r.month) ?? 0) + Number(r.count));
  return [...months].map(([month, events]) => ({ month, events })).sort((a, b) => b.month.localeCompare(a.month));
}

export function usageRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.use('/usage', requireSession(deps));
  r.get('/usage', async (c) => {
    const ws = requireRole(c);
    const now = deps.services.clock.now();
    const today = Math.floor(now / DAY) * DAY;
    const since = today - (CHART_DAYS - 1) * DAY;
    const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(since + i * DAY).toISOString().slice(0, 10));
    const channels = await deps.accounts.visibleChannels(ws.id, c.get('viewer').id);
    const visible = new Set(channels.map((ch) => ch.id));
    // Counts of channels the viewer cannot see would leak their activity.
    const rows = (await deps.accounts.alertsPerDay(ws.id, since)).filter((x) => visible.has(x.channelId));
    // Owners and admins see the workspace's billable events; a member, the alerts of the channels they can see.
    const scope = isManager(ws.role) ? 'workspace' : 'visible';
    const months = scope === 'workspace' ? await deps.accounts.usageByMonth(ws.id) : sumByMonth(await deps.accounts.alertsPerMonth(ws.id), visible);
    const thisMonth = usageMonth(now);
    return usagePage(c, {
      days,
      channels: channels.map((ch) => ({ id: ch.id, name: ch.name })),
      rows,
      months,
      thisMonth: months.find((m) => m.month === thisMonth)?.events ?? 0,
      scope,
    });
  });
  return r;
}
