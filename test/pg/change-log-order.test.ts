import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgChangeLog } from '../../src/db/pg/alert-store/change-log.js';
import { writeUnitTail } from '../../src/db/pg/alert-store/unit.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * The live stream reads the change log as `id > last`. On PostgreSQL that is only safe when ids
 * commit in order (src/db/pg/alert-store/change-log.ts): here writers on separate connections hold
 * their transactions open for different times after drawing ids, some roll back, and a reader
 * polling all along must still end up with every committed event exactly once, in order.
 */
describePg('change log order on PostgreSQL', () => {
  let fresh: FreshDatabase;
  let db: PgDb;
  beforeAll(async () => {
    fresh = await freshDatabase();
    db = await openPg(fresh.url, { max: 12 });
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });

  it('a reader of id > last misses nothing and sees nothing twice while writers commit concurrently', async () => {
    const log = new PgChangeLog(db.pool);
    expect(await log.headEventId()).toBe(0);
    const writers = 8;
    const perWriter = 12;
    let running = writers;
    const writer = async (w: number) => {
      const client = await db.pool.connect();
      try {
        for (let k = 0; k < perWriter; k++) {
          await client.query('BEGIN');
          // A write unit's own last statement (the one that appends), with no outbox rows.
          await writeUnitTail(client, {
            jobs: [],
            routeEvents: [],
            events: [
              { channelId: `c${w}`, alertId: `a${w}-${k}-1`, type: 'alert.created', now: Date.now() },
              { channelId: `c${w}`, alertId: `a${w}-${k}-2`, type: 'alert.updated', now: Date.now() },
            ],
          });
          // A slow commit: without ordered appends, later ids would become visible before these.
          await new Promise((r) => setTimeout(r, (w * 7 + k * 3) % 11));
          await client.query(k % 5 === 4 ? 'ROLLBACK' : 'COMMIT');
        }
      } finally {
        client.release();
        running--;
      }
    };
    const seen: number[] = [];
    const reader = async () => {
      let last = 0;
      for (;;) {
        const done = running === 0;
        const batch = await log.eventsAfter(last, 50);
        for (const e of batch) seen.push(e.id);
        if (batch.length > 0) last = batch[batch.length - 1]!.id;
        else if (done) return;
        else await new Promise((r) => setTimeout(r, 1));
      }
    };
    await Promise.all([...Array.from({ length: writers }, (_, w) => writer(w)), reader()]);

    const { rows } = await db.pool.query<{ id: number }>('SELECT id FROM alert_events ORDER BY id');
    const committed = rows.map((r) => r.id);
    expect(committed).toHaveLength(writers * perWriter * 2 - writers * Math.floor(perWriter / 5) * 2);
    expect(seen).toEqual(committed);
    expect(await log.headEventId()).toBeGreaterThanOrEqual(committed[committed.length - 1]!);
    expect(await log.oldestEventId()).toBe(committed[0]);
  });
});
