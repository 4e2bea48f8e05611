import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/lib/clock.js';
import { IdGenerator, alertIdFromSnowflake } from '../src/lib/ids.js';
import { accepted, bodyOf } from './helpers/bodies.js';
import { testEngine, createEngineHarness, postAlert, seedWorkspace } from './helpers/harness.js';

/** The millisecond time in a ULID's first 10 Crockford base32 characters. */
const decodeTime = (prefix: string) => [...prefix].reduce((t, ch) => t * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch), 0);

describe('ids', () => {
  it('increase within one millisecond and when the clock steps back', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const g = new IdGenerator(() => clock.now());
    const a = g.next('alt');
    const b = g.next('alt');
    clock.advance(-60_000);
    const c = g.next('alt');
    expect([a, b, c]).toEqual([a, b, c].sort());
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('continue after the newest stored id when a restart finds the clock behind', async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const h = await createEngineHarness(testEngine(), { overrides: { clock } });
    try {
      const seed = await seedWorkspace(h.services);
      const before = accepted((await postAlert(h, seed.general.webhookToken, { title: 'before' })).body).alertId;
      await h.stopNodes();
      clock.set(Date.UTC(2026, 0, 1)); // five months back
      const again = await h.restart({ overrides: { clock } });
      const after = accepted((await postAlert(again, seed.general.webhookToken, { title: 'after' })).body).alertId;
      expect(after > before).toBe(true);
      const page = await bodyOf.page(await again.call('GET', '/api/channels/general/alerts', { token: seed.ownerToken }));
      expect(page.alerts.map((x) => x.title)).toEqual(['after', 'before']);
    } finally {
      await h.close();
    }
  });

  it('derive the same alert id from a Discord snowflake every time, in Discord order', () => {
    // Pinned: stored chat alerts carry these ids, so a changed derivation would make a re-sync store every message twice.
    expect(alertIdFromSnowflake('1329057501282304000')).toBe('alt_01JHMXBDF80000000000000000');
    // Discord's documented example snowflake (2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7).
    expect(alertIdFromSnowflake('175928847299117063')).toBe('alt_01AHKE86R40000000000004007');
    expect(new Date(decodeTime('01AHKE86R4')).toISOString()).toBe('2016-04-30T11:18:25.796Z');
    expect(alertIdFromSnowflake('1329057501282304000') < alertIdFromSnowflake('1329057501282304001')).toBe(true);
  });
});
