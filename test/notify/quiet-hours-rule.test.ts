import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { renderQuietDigestEmail } from '../../src/notify/email/quiet-digest-email.js';
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

  it('a long digest lists 50 and says how many more, with the feed link; sender text is escaped', () => {
    const items = Array.from({ length: 53 }, (_, i) => ({
      level: 'WARNING' as const,
      title: i === 0 ? '<b>Disk</b> & co' : `Alert ${i}`,
      channelSlug: 'general',
      workspaceName: 'Acme',
      when: '23:14',
      url: 'http://ab.test/channels/ch_1',
    }));
    const email = renderQuietDigestEmail({ items, leftOut: { resolved: 0, deleted: 0 }, windowText: '22:00–07:00 Europe/Berlin', recipientEmail: 'a@b.test', feedUrl: 'http://ab.test/feed', settingsUrl: 'http://ab.test/profile#quiet-hours' });
    expect(email.subject).toBe('[Quiet hours] 53 alerts while you were away (22:00–07:00 Europe/Berlin)');
    expect(email.text).toContain('…and 3 more alerts: http://ab.test/feed');
    expect(email.text).toContain('Alert 49');
    expect(email.text).not.toContain('Alert 50');
    expect(email.html).toContain('&lt;b&gt;Disk&lt;/b&gt; &amp; co');
    expect(email.html).not.toContain('<b>Disk</b>');
  });
});
