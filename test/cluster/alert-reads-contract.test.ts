import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/sqlite/connection.js';
import { openPg } from '../../src/db/pg/connection.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
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
 * One contract, two engines: the same rows are stored on SQLite and on PostgreSQL, and the alert
 * store's read side must answer every case alike (and as stated here).
 */
const alert = (id: string, channel: string, level: string, t: number, seq = t) => ({
  id, channel_id: channel, kind: 'standard', title: `title ${id}`, level, emoji: '', message: `message ${id}`, fields_json: '[]',
  activity_key: id, seq, created_at: 1_700_000_000_000 + t, updated_at: 1_700_000_000_000 + t, status: 'open', occurrences: 1, reaction_count: 0,
});
const FIXTURE: [string, Record<string, Value>[]][] = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Other', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1, email_verified: true }, { id: 'u2', email: 'm@a.test', name: 'Member', created_at: 1, email_verified: true }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }, { workspace_id: 'w1', user_id: 'u2', role: 'member', created_at: 1 }]],
  ['channels', [
    { id: 'ch_pub', workspace_id: 'w1', name: 'General', slug: 'general', icon: '📢', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch_priv', workspace_id: 'w1', name: 'Security', slug: 'security', icon: '🔒', is_private: true, webhook_token: 'whk_2', created_at: 2 },
    { id: 'ch_other', workspace_id: 'w2', name: 'General', slug: 'general', icon: '📢', is_private: false, webhook_token: 'whk_3', created_at: 1 },
  ]],
  ['channel_members', [{ channel_id: 'ch_priv', user_id: 'u1', created_at: 1 }]],
  ['discord_links', [{ channel_id: 'ch_pub', discord_channel_id: '42', guild_id: '7', guild_name: 'Guild', discord_channel_name: 'general', created_at: 1 }]],
  ['alerts', [
    alert('alt_01', 'ch_pub', 'INFO', 1), alert('alt_02', 'ch_pub', 'ERROR', 2), alert('alt_03', 'ch_pub', 'INFO', 3),
    // alt_05 resurfaced: its number moved from 5 to 6, so 5 is gone above u2's watermark.
    alert('alt_04', 'ch_pub', 'ERROR', 4), alert('alt_05', 'ch_pub', 'INFO', 5, 6), alert('alt_06', 'ch_priv', 'WARNING', 6, 1),
  ]],
  ['alert_attachments', [
    { alert_id: 'alt_02', position: 1, media_key: 'b.png', mime: 'image/png', kind: 'image', name: null, size: 20 },
    { alert_id: 'alt_02', position: 0, media_key: 'a.png', mime: 'image/png', kind: 'image', name: 'a.png', size: 10 },
  ]],
  // u2 read up to alt_02 (seq 2; one number above it is gone since), then read alt_04 and unread
  // alt_01; an exception whose seq is stale (alt_05 before it resurfaced) counts for nothing.
  ['read_marks', [{ user_id: 'u2', channel_id: 'ch_pub', watermark_seq: 2, gone_above: 1, updated_at: 1 }]],
  ['read_exceptions', [
    { user_id: 'u2', alert_id: 'alt_04', channel_id: 'ch_pub', seq: 4, is_read: true },
    { user_id: 'u2', alert_id: 'alt_01', channel_id: 'ch_pub', seq: 1, is_read: false },
    { user_id: 'u2', alert_id: 'alt_05', channel_id: 'ch_pub', seq: 5, is_read: true },
  ]],
];

async function seed(engine: TransferEngine) {
  const specs = new Map(transferTables().map((t) => [t.name, t]));
  try {
    for (const [table, rows] of FIXTURE) {
      const spec = specs.get(table)!;
      await engine.insert(spec, rows.map((r) => spec.columns.map((c) => r[c.name] ?? (c.name === 'title' || c.name === 'emoji' ? '' : null))));
    }
  } finally {
    await engine.close();
  }
}

const owner = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
const member = { tokenId: 't2', userId: 'u2', workspaceId: 'w1' };

function contract(open: () => Promise<{ reads: AlertReads; close(): Promise<void> }>) {
  let reads: AlertReads;
  let close: () => Promise<void>;
  beforeAll(async () => ({ reads, close } = await open()));
  afterAll(() => close?.());
  const unread = async (p: typeof owner) => Object.fromEntries((await reads.visibleChannels(p)).map((c) => [c.id, c.unread]));

  it('lists visible channels, oldest first, with each user\'s unread count and the Discord link', async () => {
    const list = await reads.visibleChannels(owner);
    expect(list.map((c) => [c.id, c.isPrivate, c.unread])).toEqual([['ch_pub', false, 5], ['ch_priv', true, 1]]);
    expect(list[0]!.discord).toEqual({ channelId: '42', guildId: '7', guildName: 'Guild', channelName: 'general' });
    expect(await unread(member)).toEqual({ ch_pub: 3 });
    expect(await reads.visibleChannelIds(member)).toEqual(['ch_pub']);
    expect((await reads.visibleChannel(owner, 'security'))?.id).toBe('ch_priv');
    expect(await reads.visibleChannel(member, 'security')).toBeUndefined();
    expect((await reads.visibleChannel(member, 'ch_pub'))?.slug).toBe('general');
  });

  it('pages newest first with limit, cursor, after and level', async () => {
    const ids = async (q: Partial<Parameters<AlertReads['page']>[0]>) => (await reads.page({ channelId: 'ch_pub', limit: 10, ...q })).map((a) => a.id);
    expect(await ids({ limit: 2 })).toEqual(['alt_05', 'alt_04']);
    expect(await ids({ cursor: 'alt_04' })).toEqual(['alt_03', 'alt_02', 'alt_01']);
    expect(await ids({ after: 'alt_03' })).toEqual(['alt_05', 'alt_04']);
    expect(await ids({ level: 'ERROR' })).toEqual(['alt_04', 'alt_02']);
  });

  it('reads one alert with the same values and types, and only when visible', async () => {
    const a = await reads.alert('alt_03');
    expect(a).toMatchObject({ id: 'alt_03', channelId: 'ch_pub', kind: 'standard', level: 'INFO', fieldsJson: '[]', workflowRunId: null, createdAt: 1_700_000_000_003 });
    expect(Object.keys(a!).sort()).toEqual(Object.keys((await reads.page({ channelId: 'ch_pub', limit: 1 }))[0]!).sort());
    expect(await reads.visibleAlert(member, 'alt_06')).toBeUndefined();
    expect(await reads.visibleAlert(owner, 'alt_06')).toMatchObject({ id: 'alt_06', channelName: 'Security', channelSlug: 'security' });
    expect(await reads.alert('nope')).toBeUndefined();
  });

  it('gives the read context of a page: watermark, exceptions and attachments in position order', async () => {
    const ctx = await reads.readContext('u2', 'ch_pub', ['alt_01', 'alt_02', 'alt_04']);
    expect(ctx.watermark).toBe(2);
    expect([...ctx.exceptions.entries()].sort()).toEqual([['alt_01', { seq: 1, isRead: false }], ['alt_04', { seq: 4, isRead: true }]]);
    expect(ctx.attachments.get('alt_02')?.map((x) => [x.position, x.mediaKey, x.size])).toEqual([[0, 'a.png', 10], [1, 'b.png', 20]]);
    expect((await reads.readContext('u1', 'ch_pub', [])).watermark).toBe(0);
  });

  it('reads a channel page with its read context as the three steps do (on PostgreSQL in two statements)', async () => {
    type Query = Omit<Parameters<AlertReads['page']>[0], 'channelId'>;
    const inSteps = async (p: typeof owner, ref: string, q: Query) => {
      const channel = await reads.visibleChannel(p, ref);
      if (!channel) return undefined;
      const rows = await reads.page({ ...q, channelId: channel.id });
      const context = rows.length > 0 ? await reads.readContext(p.userId, channel.id, rows.map((r) => r.id)) : { watermark: 0, exceptions: new Map(), attachments: new Map() };
      return { channel, rows, context };
    };
    const queries: Query[] = [
      { limit: 3 }, { limit: 10 }, { limit: 2, cursor: 'alt_04' }, { limit: 3, ascending: true }, { limit: 2, ascending: true, cursor: 'alt_02' },
      { limit: 10, level: 'ERROR' }, { limit: 10, status: ['open', 'resolved'] }, { limit: 10, after: 'alt_03' }, { limit: 10, threadId: '9' },
      { limit: 5, cursor: 'alt_01' },
    ];
    for (const [p, ref] of [[owner, 'general'], [member, 'ch_pub'], [owner, 'security'], [member, 'security'], [member, 'nope']] as const) {
      for (const q of queries) expect(await reads.channelPage(p, ref, q), `${p.userId} ${ref} ${JSON.stringify(q)}`).toEqual(await inSteps(p, ref, q));
    }
    const page = await reads.channelPage(member, 'general', { limit: 10 });
    expect(page?.rows.map((r) => r.id)).toEqual(['alt_05', 'alt_04', 'alt_03', 'alt_02', 'alt_01']);
    expect(page?.context.attachments.get('alt_02')?.map((x) => [x.position, x.mediaKey, x.name, x.size])).toEqual([[0, 'a.png', 'a.png', 10], [1, 'b.png', null, 20]]);
    expect(Object.keys(page!.rows[0]!)).toEqual(Object.keys((await reads.page({ channelId: 'ch_pub', limit: 1 }))[0]!));
    expect(await reads.channelPage(member, 'security', { limit: 10 })).toBeUndefined();
  });

  it('marks one alert read or unread, then all of a channel', async () => {
    await reads.setRead('u2', { id: 'alt_03', channelId: 'ch_pub', seq: 3 }, true);
    expect(await unread(member)).toEqual({ ch_pub: 2 });
    await reads.setRead('u2', { id: 'alt_01', channelId: 'ch_pub', seq: 1 }, true);
    expect(await unread(member)).toEqual({ ch_pub: 1 });
    expect((await reads.readContext('u2', 'ch_pub', ['alt_01'])).exceptions.size).toBe(0);
    await reads.markAllRead('u2', ['ch_pub'], 99);
    expect(await unread(member)).toEqual({ ch_pub: 0 });
    expect((await reads.readContext('u2', 'ch_pub', ['alt_03', 'alt_04'])).exceptions.size).toBe(0);
    expect((await reads.readContext('u2', 'ch_pub', [])).watermark).toBe(6);
    expect(await unread(owner)).toEqual({ ch_pub: 5, ch_priv: 1 });
  });
}

describe('alert store reads on SQLite', () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  contract(async () => {
    const file = path.join(dir, 'alertbridge.db');
    await seed(SqliteTransferEngine.openTarget(file));
    const db = openDb(file);
    return { reads: new SqlAlertReads(new SqliteExecutor(db.sqlite), new SqliteAlertPages(db.sqlite)), close: async () => db.close() };
  });
});

describePg('alert store reads on PostgreSQL', () => {
  contract(async () => {
    const fresh = await freshDatabase({ migrated: true });
    await seed(await PgTransferEngine.open(fresh.url));
    const db = await openPg(fresh.url);
    return {
      reads: new PgAlertReads(db.pool),
      close: async () => {
        await db.close();
        await fresh.drop();
      },
    };
  });
});
