import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { parseQuietHours, quietFieldOf, quietHoursAllow, type QuietHours } from '../../src/domain/quiet-hours.js';

const BERLIN: QuietHours = { timeZone: 'Europe/Berlin', startMinute: 22 * 60, endMinute: 7 * 60, minLevel: 'ERROR' };
const utc = (iso: string) => Date.parse(iso);

describe('quietHoursAllow (the one quiet-hours rule)', () => {
  it('a window crossing midnight: held on both sides of midnight until 07:00 local, free outside', () => {
    expect(quietHoursAllow(BERLIN, 'WARNING', utc('2026-01-10T20:59:00Z'))).toEqual({ allow: true }); // 21:59 Berlin
    expect(quietHoursAllow(BERLIN, 'WARNING', utc('2026-01-10T21:00:00Z'))).toEqual({ allow: false, until: utc('2026-01-11T06:00:00Z') });
    expect(quietHoursAllow(BERLIN, 'INFO', utc('2026-01-11T02:00:00Z'))).toEqual({ allow: false, until: utc('2026-01-11T06:00:00Z') });
    expect(quietHoursAllow(BERLIN, 'INFO', utc('2026-01-11T06:00:00Z'))).toEqual({ allow: true });
  });

  it('at or above the level always notifies; no quiet hours always notifies', () => {
    expect(quietHoursAllow(BERLIN, 'ERROR', utc('2026-01-11T02:00:00Z'))).toEqual({ allow: true });
    expect(quietHoursAllow({ ...BERLIN, minLevel: 'WARNING' }, 'WARNING', utc('2026-01-11T02:00:00Z'))).toEqual({ allow: true });
    expect(quietHoursAllow(null, 'SUCCESS', utc('2026-01-11T02:00:00Z'))).toEqual({ allow: true });
  });

  it('a daytime window, and the end on the night the clocks change (as Intl gives local time)', () => {
    const lunch: QuietHours = { timeZone: 'America/New_York', startMinute: 12 * 60, endMinute: 13 * 60, minLevel: 'ERROR' };
    expect(quietHoursAllow(lunch, 'INFO', utc('2026-07-01T16:30:00Z'))).toEqual({ allow: false, until: utc('2026-07-01T17:00:00Z') }); // EDT
    expect(quietHoursAllow(lunch, 'INFO', utc('2026-07-01T15:59:00Z'))).toEqual({ allow: true });
    // Berlin goes to summer time on 2026-03-29: 07:00 that morning is 05:00 UTC, the evening before was UTC+1.
    expect(quietHoursAllow(BERLIN, 'INFO', utc('2026-03-28T22:00:00Z'))).toEqual({ allow: false, until: utc('2026-03-29T05:00:00Z') });
    // And back on 2026-10-25: 07:00 is 06:00 UTC again.
    expect(quietHoursAllow(BERLIN, 'INFO', utc('2026-10-24T21:00:00Z'))).toEqual({ allow: false, until: utc('2026-10-25T06:00:00Z') });
  });

  it('input is checked field by field', () => {
    expect(parseQuietHours({ start: '22:00', end: '7:00', timeZone: 'Europe/Berlin' })).toEqual(BERLIN);
    const field = (input: Parameters<typeof parseQuietHours>[0]) => {
      try {
        parseQuietHours(input);
        return null;
      } catch (err) {
        return quietFieldOf(err as AppError);
      }
    };
    expect(field({ start: '24:00', end: '07:00', timeZone: 'UTC' })).toBe('start');
    expect(field({ start: '22:00', end: '22:00', timeZone: 'UTC' })).toBe('end');
    expect(field({ start: '22:00', end: '07:00', timeZone: 'Nowhere/Else' })).toBe('timeZone');
    expect(field({ start: '22:00', end: '07:00', timeZone: 'UTC', minLevel: 'loud' })).toBe('minLevel');
  });
});
