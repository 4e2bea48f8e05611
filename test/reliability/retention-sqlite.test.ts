import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../src/domain/alert-store.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, seedWorkspace, type Harness } from '../helpers/harness.js';
import { sqliteServicesOf } from '../../src/services.js';
import { percentile, seedDirect } from './retention-seed.js';

// SQLite only: a prune batch's time inside its group-commit unit against until the write batcher's COMMIT (PostgreSQL's pruning under ingest: retention.test.ts).

const DAY = 24 * 60 * 60 * 1000;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const count = (h: Harness, channelId: string) =>
  sqliteServicesOf(h.services).db.sqlite.prepare('SELECT count(*) FROM alerts WHERE channel_id = ?').pluck().get(channelId) as number;

describe('retention on SQLite', () => {
  it('measures batch time on a 100k-alert channel with attachments and read exceptions (logged, not asserted)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    h = await startHarness({ engine: 'sqlite', overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const s = h.services;
    const file = (i: number): AttachmentRecord[] =>
      i % 10 === 0 ? [{ mediaKey: `${String(i % 1000).padStart(64, '0')}.png`, mime: 'image/png', kind: 'image', name: null, size: 100 }] : [];
    await seedDirect(s, seed.general.id, seed.ws.id, 100_000, file);
    const sqlite = sqliteServicesOf(s).db.sqlite;
    // Read state of two users on the channel: one exception every 50 alerts.
    sqlite
      .prepare(
        `INSERT INTO read_exceptions (user_id, alert_id, channel_id, seq, is_read)
         SELECT u.id, a.id, a.channel_id, a.seq, 1 FROM alerts a, users u
         WHERE a.channel_id = ? AND u.id IN (?, ?) AND (abs(random()) % 50) = 0`,
      )
      .run(seed.general.id, seed.owner.id, seed.member.id);
    clock.advance(DAY);

    const measure = async (rule: { olderThan: number | null; keepNewest: number | null }, batches: number) => {
      const unit: number[] = [];
      const wall: number[] = [];
      for (let i = 0; i < batches; i++) {
        const t = performance.now();
        const b = await s.store.retention.pruneBatch(seed.general.id, rule, 500, clock.now());
        wall.push(performance.now() - t);
        unit.push(b.unitMs);
        if (b.deleted < 500) break;
      }
      const fmt = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(2)} / p95 ${percentile(xs, 95).toFixed(2)} / max ${percentile(xs, 100).toFixed(2)} ms`;
      return `${unit.length} batches of 500: inside the unit ${fmt(unit)}; until COMMIT resolved ${fmt(wall)}`;
    };
    const byCount = await measure({ olderThan: null, keepNewest: 50_000 }, 40);
    const byAge = await measure({ olderThan: clock.now(), keepNewest: null }, 40);
    console.log(`retention batches on 100k alerts — max-alerts rule: ${byCount}\n  days rule: ${byAge}`);
    expect(count(h!, seed.general.id)).toBe(100_000 - 2 * 40 * 500);
  }, 60_000);
});
