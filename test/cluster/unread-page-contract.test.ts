import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/sqlite/connection.js';
import { openPg } from '../../src/db/pg/connection.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAlertReads } from '../../src/db/shared/alert-reads.js';
import { SqliteAlertPages } from '../../src/db/sqlite/alert-pages.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { TransferEngine } from '../../src/db/transfer/engine.js';
import { PgTransferEngine } from '../../src/db/transfer/pg-engine.js';
import { SqliteTransferEngine } from '../../src/db/transfer/sqlite-engine.js';
import { transferTables, type Value } from '../../src/db/transfer/tables.js';
import type { AlertReads } from '../../src/domain/alert-store.js';
import { tempDir } from '../helpers/harness.js';
import { describePg, freshDatabase } from '../helpers/pg.js';

/**
 * The unread-only page (AlertReads.unreadPage) on both engines: the right alerts in id order, read
 * and unread exceptions honoured, the cursor carried across pages, for a user far behind, one nearly
 * caught up and one who never read the channel, in a channel whose id and seq orders disagree for a
 * few rows (two messages stored later with older ids, two alerts resurfaced after the marks were set).
 */
const N = 300;
const id = (i: number, tail = '') => `alt_${String(i).padStart(4, '0')}${tail}`;
const alert = (alertId: string, seq: number) => ({
  id: alertId, channel_id: 'ch', kind: 'standard', title: `title ${alertId}`, level: 'INFO', emoji: '', message: 'm', fields_json: '[]',
  activity_key: alertId, seq, created_at: 1_700_000_000_000 + seq, updated_at: 1_700_000_000_000 + seq, status: 'open', occurrences: 1, reaction_count: 0,
});
const user = (userId: string) => ({ id: userId, email: `${userId}@a.test`, name: userId, created_at: 1, email_verified: true });
const FIXTURE: [string, Record<string, Value>[]][] = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [user('far'), user('near'), user('never')]],
  ['channels', [{ id: 'ch', workspace_id: 'w1', name: 'General', slug: 'general', icon: '📢', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
  // Stored in this order: 300 alerts, then two older-id messages (as a thread backfill stores them) taking numbers 301 and 302.
  ['alerts', [...Array.from({ length: N }, (_, i) => alert(id(i + 1), i + 1)), alert(id(50, 'x'), 301), alert(id(120, 'x'), 302)]],
  ['read_marks', [
    { user_id: 'far', channel_id: 'ch', watermark_seq: 5, gone_above: 0, updated_at: 1 },
    { user_id: 'near', channel_id: 'ch', watermark_seq: 295, gone_above: 0, updated_at: 1 },
  ]],
  ['read_exceptions', [
    { user_id: 'far', alert_id: id(100), channel_id: 'ch', seq: 100, is_read: true },
    { user_id: 'far', alert_id: id(50, 'x'), channel_id: 'ch', seq: 301, is_read: true },
    { user_id: 'far', alert_id: id(3), channel_id: 'ch', seq: 3, is_read: false },
    // Read before alt_0010 resurfaced: void afterwards, so alt_0010 is unread again.
    { user_id: 'far', alert_id: id(10), channel_id: 'ch', seq: 10, is_read: true },
    { user_id: 'near', alert_id: id(7), channel_id: 'ch', seq: 7, is_read: false },
    { user_id: 'near', alert_id: id(298), channel_id: 'ch', seq: 298, is_read: true },
  ]],
];
/** Resurfacing as any writer spells it (a fresh activity key): the triggers give the alert the channel's next number. */
const RESURFACE = [`UPDATE alerts SET activity_key = 'again_10' WHERE id = '${id(10)}'`, `UPDATE alerts SET activity_key = 'again_200' WHERE id = '${id(200)}'`];

async function seed(engine: TransferEngine) {
  const specs = new Map(transferTables().map((t) => [t.name, t]));
  try {
    for (const [table, rows] of FIXTURE) {
      const spec = specs.get(table)!;
      await engine.insert(spec, rows.map((r) => spec.columns.map((c) => r[c.name] ?? null)));
    }
  } finally {
    await engine.close();
  }
}

const descending = (ids: string[]) => [...ids].sort().reverse();
const all = [...Array.from({ length: N }, (_, i) => id(i + 1)), id(50, 'x'), id(120, 'x')];

async function walk(reads: AlertReads, userId: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const rows = await reads.unreadPage(userId, { channelId: 'ch', limit, ...(cursor === undefined ? {} : { cursor }) });
    seen.push(...rows.map((r) => r.id));
    if (rows.length < limit) return seen;
    cursor = rows[rows.length - 1]!.id;
  }
  throw new Error('the pages never ended');
}

function contract(open: () => Promise<{ reads: AlertReads; close(): Promise<void> }>) {
  let reads: AlertReads;
  let close: () => Promise<void>;
  beforeAll(async () => ({ reads, close } = await open()));
  afterAll(() => close());

  it('nearly caught up: the few alerts above the watermark, the resurfaced and backfilled ones, and the unread exception, newest first', async () => {
    const expected = [id(300), id(299), id(297), id(296), id(200), id(120, 'x'), id(50, 'x'), id(10), id(7)];
    expect((await reads.unreadPage('near', { channelId: 'ch', limit: 50 })).map((r) => r.id)).toEqual(expected);
    for (const limit of [1, 2, 4]) expect(await walk(reads, 'near', limit)).toEqual(expected);
  });

  it('far behind: every alert above the watermark except those read one by one, plus the unread exception, across pages', async () => {
    const read = new Set([id(1), id(2), id(4), id(5), id(100), id(50, 'x')]);
    const expected = descending(all.filter((a) => !read.has(a)));
    for (const limit of [7, 25, 400]) expect(await walk(reads, 'far', limit)).toEqual(expected);
    const cursor = id(121);
    expect((await reads.unreadPage('far', { channelId: 'ch', cursor, limit: 3 })).map((r) => r.id)).toEqual([id(120, 'x'), id(120), id(119)]);
  });

  it('never marked read: every alert', async () => {
    expect(await walk(reads, 'never', 50)).toEqual(descending(all));
  });

  it('agrees with the read state the pages render (readContext)', async () => {
    for (const userId of ['far', 'near', 'never']) {
      const rows = await reads.page({ channelId: 'ch', limit: 1000 });
      const ctx = await reads.readContext(userId, 'ch', rows.map((r) => r.id));
      const unread = rows.filter((r) => {
        const e = ctx.exceptions.get(r.id);
        return !(e && e.seq === r.seq ? e.isRead : r.seq <= ctx.watermark);
      });
      expect(await walk(reads, userId, 10)).toEqual(unread.map((r) => r.id));
    }
  });
}

describe('unread-only pages on SQLite', () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  contract(async () => {
    const file = path.join(dir, 'alertbridge.db');
    await seed(SqliteTransferEngine.openTarget(file));
    const db = openDb(file);
    for (const sql of RESURFACE) db.sqlite.prepare(sql).run();
    // The store's own reader on SQLite: raw rows through SqliteAlertPages.
    return { reads: new SqlAlertReads(new SqliteExecutor(db.sqlite), new SqliteAlertPages(db.sqlite)), close: async () => db.close() };
  });
});

describePg('unread-only pages on PostgreSQL', () => {
  contract(async () => {
    const fresh = await freshDatabase({ migrated: true });
    await seed(await PgTransferEngine.open(fresh.url));
    const db = await openPg(fresh.url);
    for (const sql of RESURFACE) await db.pool.query(sql);
    return {
      reads: new SqlAlertReads(new PgExecutor(db.pool)),
      close: async () => {
        await db.close();
        await fresh.drop();
      },
    };
  });
});
