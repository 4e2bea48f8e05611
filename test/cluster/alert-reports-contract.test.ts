import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAlertReports } from '../../src/db/shared/alert-reports.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { AlertReports } from '../../src/domain/alert-reports.js';
import { OUTBOX_STALE_AFTER_MS } from '../../src/domain/alert-reports.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the counting reads behind `admin stats`, `admin notify status`,
 * /readyz, /metrics and the dashboard's usage chart: the same rows give the same answers.
 */
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 12);
const alert = (id: string, channel: string, at: number) => ({ id, channel_id: channel, kind: 'standard', title: id, level: 'INFO', emoji: '', fields_json: '[]', activity_key: id, created_at: at, updated_at: at });
const file = (alertId: string, position: number, key: string, size: number) => ({ alert_id: alertId, position, media_key: key, mime: 'image/png', kind: 'image', size });
const job = (id: number, alertId: string, state: string, due: number, lastError: string | null = null) => ({
  id, alert_id: alertId, channel_id: 'ch1', kind: 'alert.created', state, attempts: state === 'failed' ? 5 : 0, next_attempt_at: due, last_error: lastError, created_at: NOW - 10 * DAY + id,
});

const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Other', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Builds', slug: 'builds', icon: '🔧', is_private: false, webhook_token: 'whk_2', created_at: 1 },
    { id: 'ch3', workspace_id: 'w2', name: 'Elsewhere', slug: 'elsewhere', icon: '🌍', is_private: false, webhook_token: 'whk_3', created_at: 1 },
  ]],
  ['alerts', [
    // Day boundaries in UTC: 23:59:59.999 and 00:00 fall on different days.
    alert('a1', 'ch1', Date.UTC(2026, 10, 18, 23, 59, 59, 999)),
    alert('a2', 'ch1', Date.UTC(2026, 10, 19, 0, 0)),
    alert('a3', 'ch2', Date.UTC(2026, 10, 19, 8)),
    alert('a4', 'ch1', Date.UTC(2026, 10, 19, 9)),
    alert('a5', 'ch3', Date.UTC(2026, 10, 19, 9)),
    alert('a0', 'ch1', Date.UTC(2026, 9, 1)),
  ]],
  ['alert_attachments', [
    // One file used twice in ch1 (counted once per owner and once overall), one shared by two workspaces.
    file('a1', 0, 'k-big', 3_000_000_000), file('a2', 0, 'k-big', 3_000_000_000), file('a2', 1, 'k-small', 10),
    file('a3', 0, 'k-shared', 500), file('a5', 0, 'k-shared', 500),
  ]],
  ['notification_jobs', [
    job(1, 'a1', 'pending', NOW - OUTBOX_STALE_AFTER_MS - 1), job(2, 'a2', 'pending', NOW - 1000), job(3, 'a3', 'pending', NOW + 60_000),
    job(4, 'a4', 'done', NOW - 5 * DAY), job(5, 'a5', 'failed', NOW - 3 * DAY, 'no recipients table'),
  ]],
  ['notification_deliveries', [
    { job_id: 4, user_id: 'u1', channel_id: 'ch1', alert_id: 'a4', state: 'failed', attempts: 6, next_attempt_at: 0, last_error: '550 mailbox unavailable', created_at: NOW - 4 * DAY, updated_at: NOW - 2 * DAY },
    { job_id: 2, user_id: 'u1', channel_id: 'ch1', alert_id: 'a2', state: 'sent', attempts: 1, next_attempt_at: 0, created_at: NOW, updated_at: NOW },
  ]],
  ['notification_digests', [
    { id: 7, user_id: 'u1', channel_id: 'ch1', window_start: 0, window_end: 1, state: 'failed', attempts: 6, next_attempt_at: 0, last_error: 'timeout', created_at: NOW - DAY, updated_at: NOW - DAY },
  ]],
];

function contract(open: () => Promise<EngineHandle & { reports: AlertReports }>) {
  let e: EngineHandle & { reports: AlertReports };
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());

  it('counts alerts per channel', async () => {
    expect(Object.fromEntries(await e.reports.alertsPerChannel())).toEqual({ ch1: 4, ch2: 1, ch3: 1 });
  });

  it('sums distinct media files per channel, per workspace and overall, beyond 32-bit sizes', async () => {
    expect(Object.fromEntries(await e.reports.mediaBytesBy('channel'))).toEqual({ ch1: 3_000_000_010, ch2: 500, ch3: 500 });
    expect(Object.fromEntries(await e.reports.mediaBytesBy('workspace'))).toEqual({ w1: 3_000_000_510, w2: 500 });
    expect(await e.reports.mediaBytes()).toBe(3_000_000_510);
  });

  it('reports the outbox backlog: pending, stale and the oldest due age', async () => {
    expect(await e.reports.outboxBacklog(NOW)).toEqual({ pending: 3, stale: 1, oldestDueMs: OUTBOX_STALE_AFTER_MS + 1 });
    expect(await e.reports.outboxBacklog(NOW - 10 * DAY)).toEqual({ pending: 3, stale: 0, oldestDueMs: 0 });
  });

  it('reports rows per state and the failures newest first, with the recipient address', async () => {
    const status = await e.reports.outboxStatus(10);
    expect(status.jobs).toEqual({ pending: 3, done: 1, failed: 1 });
    expect(status.deliveries).toEqual({ failed: 1, sent: 1 });
    expect(status.digests).toEqual({ failed: 1 });
    expect(status.pushes).toEqual({});
    expect(status.failures.map((f) => [f.what, f.jobId, f.digestId, f.email, f.alertId, f.attempts, f.lastError, f.at])).toEqual([
      ['digest', null, 7, 'o@a.test', null, 6, 'timeout', new Date(NOW - DAY).toISOString()],
      ['delivery', 4, null, 'o@a.test', 'a4', 6, '550 mailbox unavailable', new Date(NOW - 2 * DAY).toISOString()],
      ['job', 5, null, null, 'a5', 5, 'no recipients table', new Date(NOW - 10 * DAY + 5).toISOString()],
    ]);
    expect((await e.reports.outboxStatus(1)).failures).toHaveLength(1);
  });

  it('counts alerts per UTC day and channel of one workspace since a time, in day then channel order', async () => {
    expect(await e.reports.alertsPerDay('w1', Date.UTC(2026, 10, 1))).toEqual([
      { day: '2026-11-18', channelId: 'ch1', count: 1 },
      { day: '2026-11-19', channelId: 'ch1', count: 2 },
      { day: '2026-11-19', channelId: 'ch2', count: 1 },
    ]);
    expect(await e.reports.alertsPerDay('w2', Date.UTC(2026, 10, 19, 9, 0, 0, 1))).toEqual([]);
  });

  it('counts alerts per UTC month and channel of one workspace, newest month first (a member’s usage totals)', async () => {
    expect(await e.reports.alertsPerMonth('w1')).toEqual([
      { month: '2026-11', channelId: 'ch1', count: 3 },
      { month: '2026-11', channelId: 'ch2', count: 1 },
      { month: '2026-10', channelId: 'ch1', count: 1 },
    ]);
    expect(await e.reports.alertsPerMonth('no-such-workspace')).toEqual([]);
  });
}

describe('alert reports contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    return { ...h, reports: new SqlAlertReports(new SqliteExecutor(h.db.sqlite)) };
  });
});

describePg('alert reports contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return { ...h, reports: new SqlAlertReports(new PgExecutor(h.db.pool)) };
  });
});
