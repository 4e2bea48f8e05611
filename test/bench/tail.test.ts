import { describe, expect, it } from 'vitest';
import { attributeTail, type TracedSample } from '../../bench/lib/tail.js';

/** 200 calls of 1 ms wall and CPU, 1 ms apart, then the two slowest rewritten by the case. */
function calls(): TracedSample[] {
  return Array.from({ length: 200 }, (_, i) => ({ start: i * 10, wall: 1, cpu: 1 }));
}

describe('bench/lib/tail.ts: where the slowest 1 % of the calls goes', () => {
  it('counts a slow call a pause overlapped as GC, one that waited for the CPU as descheduled, the rest as slow on the CPU', () => {
    const s = calls();
    s[10] = { start: 100, wall: 4, cpu: 4 }; // a scavenge from 101 to 103.5 inside it
    s[50] = { start: 500, wall: 5, cpu: 1 }; // 4 ms of waiting for the CPU
    const pauses = [
      { start: 101, duration: 2.5, kind: 1 },
      { start: 5000, duration: 10, kind: 4 }, // between calls: no call overlaps it
    ];
    const t = attributeTail(s, pauses);
    expect(t.slow).toBe(2);
    expect(t).toMatchObject({ withGc: 1, withMajorGc: 0, descheduled: 1, onCpu: 0 });
    expect(t.gcMsPerSlow).toBeCloseTo(1.25);
    expect(t.gcShareAll).toBeCloseTo(1 / 200);
    // Without the paused and the waiting call, every call took 1 ms.
    expect(t.p99CleanMs).toBe(1);
    expect(t.minorPauseMeanMs).toBeCloseTo(2.5);
    expect(t.majorPauseMeanMs).toBeCloseTo(10);
  });

  it('names a major GC step inside a slow call, and a slow call with neither as slow on the CPU', () => {
    const s = calls();
    s[3] = { start: 30, wall: 6, cpu: 6 };
    s[7] = { start: 70, wall: 3, cpu: 3 };
    const t = attributeTail(s, [{ start: 31, duration: 4, kind: 4 }]);
    expect(t).toMatchObject({ slow: 2, withGc: 1, withMajorGc: 1, descheduled: 0, onCpu: 1 });
    // The slow call on the CPU stays among the clean calls (one in 199: above their p99).
    expect(t.p99CleanMs).toBe(1);
  });
});
