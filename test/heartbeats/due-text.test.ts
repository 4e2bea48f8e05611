import { describe, expect, it } from 'vitest';
import { dueText } from '../../src/dashboard/pages/heartbeats.js';
import { applyPing, parseSuffix, type CheckState } from '../../src/domain/heartbeats/ping.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const hourly = (over: Partial<CheckState> = {}): CheckState => ({
  schedule: { kind: 'period', periodMs: HOUR },
  graceMs: 10 * MIN,
  status: 'new',
  lastPingAt: null,
  lastStartAt: null,
  lastStartRid: null,
  lastDurationMs: null,
  ...over,
});

describe('the "next due" text on the Heartbeats pages', () => {
  const up = applyPing(hourly(), parseSuffix('')!, null, T0).state;

  it('counts down while the ping is still to come', () => {
    expect(dueText(up, T0 + 30 * MIN)).toBe('in 30 min');
  });

  it('says how late a check is once the due time passed, never "… ago"', () => {
    expect(dueText(up, T0 + HOUR)).toBe('overdue by 0 s');
    expect(dueText(up, T0 + HOUR + 4 * MIN)).toBe('overdue by 4 min');
    expect(dueText(up, T0 + HOUR + 3 * HOUR)).toBe('overdue by 3 h');
  });

  it('names the states with nothing due', () => {
    expect(dueText(hourly(), T0)).toBe('after the first ping');
    expect(dueText({ ...up, status: 'paused' }, T0)).toBe('—');
    expect(dueText({ ...up, status: 'down' }, T0 + 5 * HOUR)).toBe('overdue');
  });
});
