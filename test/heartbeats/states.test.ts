import { describe, expect, it } from 'vitest';
import { applyPing, parseSuffix, type CheckState } from '../../src/domain/heartbeats/ping.js';
import { checkStatus, cronSchedule, downAt, nextDueAt, nextExpected } from '../../src/domain/heartbeats/schedule.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const RID_A = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const RID_B = '3f2504e0-4f89-41d3-9a0c-0305e82c3302';

function hourly(over: Partial<CheckState> = {}): CheckState {
  return { schedule: { kind: 'period', periodMs: HOUR }, graceMs: 10 * MIN, status: 'new', lastPingAt: null, lastStartAt: null, lastStartRid: null, lastDurationMs: null, ...over };
}

/** Applies a ping and keeps the stored state, as the rows do. */
const ping = (c: CheckState, suffix: string, at: number, rid: string | null = null) => applyPing(c, parseSuffix(suffix)!, rid, at).state;

describe('heartbeat states on a period schedule', () => {
  it('new until the first ping; up, late within the grace, down after it', () => {
    let c = hourly();
    expect(checkStatus(c, T0 + 10 * HOUR)).toBe('new');
    expect(downAt(c)).toBeNull();
    c = ping(c, '', T0);
    expect(c.status).toBe('up');
    expect(nextDueAt(c)).toBe(T0 + HOUR);
    expect(downAt(c)).toBe(T0 + HOUR + 10 * MIN);
    expect(checkStatus(c, T0 + HOUR - 1)).toBe('up');
    expect(checkStatus(c, T0 + HOUR)).toBe('late');
    expect(checkStatus(c, T0 + HOUR + 10 * MIN - 1)).toBe('late');
    expect(checkStatus(c, T0 + HOUR + 10 * MIN)).toBe('down');
  });

  it('a fail ping or a non-zero exit status is down at once; 0 is a success', () => {
    const up = ping(hourly(), '', T0);
    expect(ping(up, 'fail', T0 + MIN).status).toBe('down');
    const exit = applyPing(up, parseSuffix('3')!, null, T0 + MIN);
    expect([exit.state.status, exit.kind, exit.exitStatus]).toEqual(['down', 'fail', 3]);
    expect(ping(ping(up, 'fail', T0 + MIN), '0', T0 + 2 * MIN).status).toBe('up');
    expect(downAt(ping(up, 'fail', T0 + MIN))).toBeNull();
  });

  it('reads only the suffixes Healthchecks has: 0–255, start, fail, log', () => {
    for (const s of ['256', '-1', '1.5', 'Start', 'ok', '0001']) expect(parseSuffix(s), s).toBeUndefined();
    expect(parseSuffix('255')).toEqual({ kind: 'exit', exitStatus: 255 });
  });

  it('a log changes nothing but is recorded as a log', () => {
    const up = ping(hourly(), '', T0);
    const out = applyPing(up, { kind: 'log' }, null, T0 + 30 * MIN);
    expect(out.kind).toBe('log');
    expect(out.state).toEqual(up);
  });

  it('a start with no end past the grace is down ("started, never finished")', () => {
    const started = ping(ping(hourly(), '', T0), 'start', T0 + 5 * MIN);
    expect(downAt(started)).toBe(T0 + 15 * MIN);
    expect(checkStatus(started, T0 + 15 * MIN - 1)).toBe('up');
    expect(checkStatus(started, T0 + 15 * MIN)).toBe('down');
    // A first run that never ends, on a new check, too.
    expect(downAt(ping(hourly(), 'start', T0))).toBe(T0 + 10 * MIN);
  });

  it('a start and its end measure the run; rid pairs them as Healthchecks does', () => {
    const up = ping(hourly(), '', T0);
    const done = applyPing(ping(up, 'start', T0 + MIN), { kind: 'success' }, null, T0 + 3 * MIN);
    expect(done.durationMs).toBe(2 * MIN);
    expect(done.state).toMatchObject({ lastDurationMs: 2 * MIN, lastStartAt: null });

    // Two overlapping runs: the end with rid A measures run A.
    const a = ping(up, 'start', T0 + MIN, RID_A);
    const endA = applyPing(a, { kind: 'success' }, RID_A, T0 + 4 * MIN);
    expect(endA.durationMs).toBe(3 * MIN);
    // An end with another rid neither measures nor ends run A …
    const other = applyPing(a, { kind: 'success' }, RID_B, T0 + 4 * MIN);
    expect(other.durationMs).toBeNull();
    expect(other.state.lastStartAt).toBe(T0 + MIN);
    // … a success without a rid ends it unmeasured, and a failure ends it whatever its rid.
    expect(applyPing(a, { kind: 'success' }, null, T0 + 4 * MIN).state.lastStartAt).toBeNull();
    expect(applyPing(a, { kind: 'fail' }, RID_B, T0 + 4 * MIN).state.lastStartAt).toBeNull();
  });

  it('paused: nothing is due; a ping resumes it', () => {
    const paused = { ...ping(hourly(), '', T0), status: 'paused' as const };
    expect(downAt(paused)).toBeNull();
    expect(checkStatus(paused, T0 + 100 * HOUR)).toBe('paused');
    expect(ping(paused, '', T0 + 100 * HOUR).status).toBe('up');
  });
});

describe('heartbeat states on a cron schedule', () => {
  it('expects the next cron time after the last ping, in the zone', () => {
    const c = { ...hourly(), schedule: cronSchedule('0 3 * * *', 'Europe/Berlin'), graceMs: 30 * MIN };
    // 12:00 UTC on 1 Jan is 13:00 in Berlin: the next 03:00 Berlin is 02:00 UTC on 2 Jan.
    const up = ping(c, '', T0);
    expect(nextDueAt(up)).toBe(Date.UTC(2026, 0, 2, 2, 0));
    expect(checkStatus(up, Date.UTC(2026, 0, 2, 2, 29))).toBe('late');
    expect(checkStatus(up, Date.UTC(2026, 0, 2, 2, 30))).toBe('down');
  });

  it('follows a DST change: 03:00 Berlin is 01:00 UTC after the spring change, 02:00 after the autumn one', () => {
    const daily = cronSchedule('0 3 * * *', 'Europe/Berlin');
    // Spring forward on 29 March 2026 (02:00 → 03:00 local).
    expect(nextExpected(daily, Date.UTC(2026, 2, 28, 2, 0))).toBe(Date.UTC(2026, 2, 29, 1, 0));
    expect(nextExpected(daily, Date.UTC(2026, 2, 27, 2, 0))).toBe(Date.UTC(2026, 2, 28, 2, 0));
    // Back on 25 October 2026.
    expect(nextExpected(daily, Date.UTC(2026, 9, 24, 1, 0))).toBe(Date.UTC(2026, 9, 25, 2, 0));
    // A 02:30 job: on the spring day that local time does not exist, and croner expects it at the gap's
    // end (03:00 CEST); on the autumn day it exists twice, and it is expected once (the first, CEST).
    const gap = cronSchedule('30 2 * * *', 'Europe/Berlin');
    expect(nextExpected(gap, Date.UTC(2026, 2, 28, 12, 0))).toBe(Date.UTC(2026, 2, 29, 1, 0));
    const autumn = nextExpected(gap, Date.UTC(2026, 9, 24, 12, 0))!;
    expect(autumn).toBe(Date.UTC(2026, 9, 25, 0, 30));
    expect(nextExpected(gap, autumn)).toBe(Date.UTC(2026, 9, 26, 1, 30));
  });

  it('refuses a bad cron line or zone', () => {
    expect(() => cronSchedule('61 * * * *', 'UTC')).toThrow(/cron/);
    expect(() => cronSchedule('0 3 * * *', 'Mars/Olympus')).toThrow(/time zone/);
    expect(() => cronSchedule('0 0 3 * * *', 'UTC')).toThrow(/five fields/);
  });
});
