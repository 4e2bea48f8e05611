import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../src/lib/iso-time.js';

describe('isoTime', () => {
  it('formats exactly like Date.toISOString, across days, years and the edges of a day', () => {
    const edges = [0, 1, 86_399_999, 86_400_000, -1, -86_400_000, Date.UTC(2026, 0, 1), Date.UTC(2026, 11, 31, 23, 59, 59, 999), 253_402_300_799_999];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    fc.assert(fc.property(fc.integer({ min: -62_000_000_000_000, max: 8_640_000_000_000_000 }), (ms) => isoTime(ms) === new Date(ms).toISOString()), { numRuns: 20_000 });
    // The same day again after another day: the cache follows.
    fc.assert(fc.property(fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), { maxLength: 20 }), (list) => list.every((ms) => isoTime(ms) === new Date(ms).toISOString())));
  });
});
