import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlMediaOrphanRows } from '../../src/db/shared/media-orphan-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { MediaOrphanRows } from '../../src/domain/media-orphan-rows.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle } from './engines.js';

/**
 * The media_orphans rows on both engines: listing, the sweep's per-key step (`settleDue`) and the
 * upload's pin. They differ on purpose in one place: a pin restarts a listed key's grace period on
 * PostgreSQL (other nodes' sweeps must see it) and does nothing on SQLite (one process: the media
 * store's in-memory pin is what its sweep sees).
 */
const K1 = `${'1'.repeat(64)}.png`;
const K2 = `${'2'.repeat(64)}.png`;

interface Engine extends EngineHandle {
  rows: MediaOrphanRows;
  pinRestartsGrace: boolean;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => {
    e = await open();
  });
  afterAll(async () => e?.close());
  beforeEach(async () => e.exec('DELETE FROM media_orphans'));

  const listed = async () => (await e.query<{ k: string; at: number }>('SELECT media_key AS k, orphaned_at AS at FROM media_orphans ORDER BY media_key')).map((r) => ({ ...r, at: Number(r.at) }));

  it('settleDue runs decide only for a key still due, and forgets the key when decide settles it', async () => {
    await e.rows.list([K1], 100);
    await e.rows.list([K2], 500);
    let ran = 0;
    expect(await e.rows.settleDue(K2, 200, () => (ran++, true))).toBe(false); // listed after the cutoff
    expect(await e.rows.settleDue(`${'3'.repeat(64)}.png`, 200, () => (ran++, true))).toBe(false); // not listed
    expect(ran).toBe(0);
    expect(await e.rows.settleDue(K1, 200, () => (ran++, false))).toBe(false); // kept listed by decide
    expect(await listed()).toEqual([{ k: K1, at: 100 }, { k: K2, at: 500 }]);
    expect(await e.rows.settleDue(K1, 200, () => (ran++, true))).toBe(true);
    expect(ran).toBe(2);
    expect(await listed()).toEqual([{ k: K2, at: 500 }]);
  });

  it('an error in decide leaves the key listed and reaches the caller; the key can be settled after', async () => {
    await e.rows.list([K1], 100);
    await expect(
      e.rows.settleDue(K1, 200, () => {
        throw new Error('EACCES');
      }),
    ).rejects.toThrow('EACCES');
    expect(await listed()).toEqual([{ k: K1, at: 100 }]);
    // On PostgreSQL the key's lock went with the rolled-back transaction: the next step is not blocked.
    expect(await e.rows.settleDue(K1, 200, () => true)).toBe(true);
  });

  it('a pin restarts a listed key\'s grace period (PostgreSQL) or does nothing (SQLite); it never lists a key', async () => {
    await e.rows.list([K1], 100);
    await e.rows.pin(K1, 1_000);
    await e.rows.pin(K2, 1_000);
    expect(await listed()).toEqual([{ k: K1, at: e.pinRestartsGrace ? 1_000 : 100 }]);
    expect(await e.rows.settleDue(K1, 200, () => true)).toBe(!e.pinRestartsGrace);
    // Never moved back by an older pin.
    await e.rows.list([K2], 5_000);
    await e.rows.pin(K2, 4_000);
    expect((await listed()).find((r) => r.k === K2)).toEqual({ k: K2, at: 5_000 });
  });
}

describe('media_orphans rows (sqlite)', () => {
  contract(async () => {
    const e = await sqliteEngine([]);
    return { ...e, rows: new SqlMediaOrphanRows(new SqliteExecutor(e.db.sqlite)), pinRestartsGrace: false };
  });
});

describePg('media_orphans rows (postgres)', () => {
  contract(async () => {
    const e = await pgEngine([]);
    return { ...e, rows: new SqlMediaOrphanRows(new PgExecutor(e.db.pool)), pinRestartsGrace: true };
  });
});
