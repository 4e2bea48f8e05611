import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgChatWrites } from '../../src/db/pg/alert-store/chat-writes.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertReads, ChatMessageWrites, NewChatMessage, ReplyParent } from '../../src/domain/alert-store.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the Discord bridge's chat-message writes: each method is one unit
 * (messages, files, change events and the link's sync mark commit together, or nothing does), and
 * unread counts stay exact when messages go. Rows are checked through another connection.
 */
const DISCORD = '1100000000000000001';
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Chat', slug: 'chat', icon: '💬', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Other', slug: 'other', icon: '🔥', is_private: false, webhook_token: 'whk_2', created_at: 2 },
  ]],
  ['discord_links', [
    { channel_id: 'ch1', discord_channel_id: DISCORD, synced_until: '90', created_at: 1 },
    { channel_id: 'ch2', discord_channel_id: '1100000000000000002', created_at: 1 },
  ]],
];
const owner = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
const NOW = Date.UTC(2026, 10, 20, 12);
const link = { channelId: 'ch1', discordChannelId: DISCORD };
const file = (key: string) => ({ mediaKey: key, mime: 'image/png', kind: 'image' as const, name: `${key}.png`, size: 10 });
const author = (name: string) => JSON.stringify({ id: '1', name, bot: false, role: 'member' });

/** A message; `replyTo` names a parent to look up, whose author and text the reply's JSON records. */
const message = (n: number, over: Partial<NewChatMessage> & { replyTo?: string } = {}): NewChatMessage => {
  const { replyTo, ...rest } = over;
  return {
    alertId: `alt_m${String(n).padStart(2, '0')}`,
    messageId: String(100 + n),
    text: `text ${n}`,
    authorJson: author(`user${n}`),
    reply: replyTo === undefined ? null : {
      parentId: replyTo,
      json: (p: ReplyParent | undefined) => JSON.stringify({ to: replyTo, author: p?.authorJson ? JSON.parse(p.authorJson).name : null, text: p?.message ?? null }),
    },
    activityKey: `act_${n}`,
    createdAt: NOW + n,
    updatedAt: NOW + n,
    attachments: [],
    ...rest,
  };
};

interface Engine extends EngineHandle {
  chat: ChatMessageWrites;
  /** The same writes through a second connection (another node). */
  otherChat: ChatMessageWrites;
  reads: AlertReads;
}

type Counted = { n: number };
function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const totals = () => e.query('SELECT (SELECT count(*) FROM alerts) AS a, (SELECT count(*) FROM alert_events) AS ev, (SELECT count(*) FROM alert_attachments) AS f');
  const mark = async () => (await e.query<{ m: string | null }>('SELECT synced_until AS m FROM discord_links WHERE channel_id = ?', ['ch1']))[0]!.m;
  const unread = async () => (await e.reads.visibleChannels(owner)).find((c) => c.id === 'ch1')!.unread;
  const count = async (sql: string, params: unknown[] = []) => Number((await e.query<Counted>(`SELECT count(*) AS n FROM ${sql}`, params))[0]!.n);

  it('stores messages in order with their files, change events and the sync mark, replies built from parents stored or earlier in the batch', async () => {
    expect(await e.chat.insertChatMessages(link, [message(1, { attachments: [file('a'), file('b')] })], NOW)).toEqual({ created: 1, skippedWithFiles: 0 });
    const result = await e.chat.insertChatMessages(link, [
      message(2, { replyTo: 'alt_m01' }),
      message(3, { replyTo: 'alt_m02', attachments: [file('c')] }),
      message(4, { replyTo: 'alt_m05' }),
      message(5),
    ], NOW, { advanceMarkTo: '105' });
    expect(result).toEqual({ created: 4, skippedWithFiles: 0 });
    expect(await e.query('SELECT id, kind, message, external_id AS x, reply_to_json AS r, activity_key AS k, seq, created_at AS t FROM alerts ORDER BY seq')).toEqual([
      { id: 'alt_m01', kind: 'chat', message: 'text 1', x: '101', r: null, k: 'act_1', seq: 1, t: NOW + 1 },
      { id: 'alt_m02', kind: 'chat', message: 'text 2', x: '102', r: '{"to":"alt_m01","author":"user1","text":"text 1"}', k: 'act_2', seq: 2, t: NOW + 2 },
      { id: 'alt_m03', kind: 'chat', message: 'text 3', x: '103', r: '{"to":"alt_m02","author":"user2","text":"text 2"}', k: 'act_3', seq: 3, t: NOW + 3 },
      // Its parent comes later in the batch: not stored yet when the reply is.
      { id: 'alt_m04', kind: 'chat', message: 'text 4', x: '104', r: '{"to":"alt_m05","author":null,"text":null}', k: 'act_4', seq: 4, t: NOW + 4 },
      { id: 'alt_m05', kind: 'chat', message: 'text 5', x: '105', r: null, k: 'act_5', seq: 5, t: NOW + 5 },
    ]);
    expect(await e.query('SELECT alert_id AS a, media_key AS k, position AS p FROM alert_attachments ORDER BY alert_id, position'))
      .toEqual([{ a: 'alt_m01', k: 'a', p: 0 }, { a: 'alt_m01', k: 'b', p: 1 }, { a: 'alt_m03', k: 'c', p: 0 }]);
    expect(await e.query('SELECT channel_id AS c, alert_id AS a, type FROM alert_events ORDER BY id')).toEqual(
      ['alt_m01', 'alt_m02', 'alt_m03', 'alt_m04', 'alt_m05'].map((a) => ({ c: 'ch1', a, type: 'alert.created' })),
    );
    expect(await mark()).toBe('105');
    expect(await count('notification_jobs')).toBe(0);
    expect(await unread()).toBe(5);
  });

  it('skips messages stored already (counting those with files), and moves the mark only forward, as numbers', async () => {
    const again = await e.otherChat.insertChatMessages(link, [
      message(1, { attachments: [file('z')] }),
      message(6),
      message(6, { attachments: [file('y')] }),
      message(3),
    ], NOW, { advanceMarkTo: '99' });
    expect(again).toEqual({ created: 1, skippedWithFiles: 2 });
    expect(await mark()).toBe('105');
    expect(await e.query('SELECT media_key AS k FROM alert_attachments WHERE alert_id IN (?, ?)', ['alt_m01', 'alt_m06'])).toEqual([{ k: 'a' }, { k: 'b' }]);
    expect(await e.query('SELECT seq FROM alerts WHERE id = ?', ['alt_m06'])).toEqual([{ seq: 6 }]);
    expect(await e.chat.insertChatMessages(link, [], NOW, { advanceMarkTo: '1000' })).toEqual({ created: 0, skippedWithFiles: 0 });
    expect(await mark()).toBe('1000');
    expect([...(await e.otherChat.storedIds(['alt_m01', 'alt_m06', 'alt_nope']))].sort()).toEqual(['alt_m01', 'alt_m06']);
    expect(await e.chat.chatMessageCount('ch1')).toBe(6);
    expect(await e.chat.chatMessageCount('ch2')).toBe(0);
  });

  it('moves the mark alone, only forward, and records the link names once, on the link it names only', async () => {
    expect(await e.chat.advanceMark(link, '999')).toBe(false);
    expect(await e.otherChat.advanceMark(link, '1000')).toBe(false);
    expect(await e.otherChat.advanceMark({ ...link, discordChannelId: '1100000000000000009' }, '5000')).toBe(false);
    expect(await mark()).toBe('1000');
    const names = { guildId: '42', guildName: 'Acme', channelName: 'general' };
    expect(await e.chat.setLinkNames(link, names)).toBe(true);
    expect(await e.otherChat.setLinkNames(link, names)).toBe(false);
    expect(await e.chat.setLinkNames({ ...link, discordChannelId: '1100000000000000009' }, { ...names, guildName: 'Other' })).toBe(false);
    expect(await e.chat.setLinkNames(link, { ...names, guildName: null })).toBe(true);
    expect(await e.query('SELECT guild_id AS g, guild_name AS gn, discord_channel_name AS cn FROM discord_links WHERE channel_id = ?', ['ch1']))
      .toEqual([{ g: '42', gn: null, cn: 'general' }]);
    expect(await e.chat.advanceMark(link, '1001')).toBe(true);
    expect(await e.chat.advanceMark(link, '1000')).toBe(false);
    expect(await mark()).toBe('1001');
  });

  it('stores nothing for a link that no longer holds, and moves no mark', async () => {
    const before = await totals();
    const stale = { channelId: 'ch1', discordChannelId: '1100000000000000009' };
    expect(await e.chat.insertChatMessages(stale, [message(7, { attachments: [file('q')] }), message(8)], NOW, { advanceMarkTo: '2000' }))
      .toEqual({ created: 0, skippedWithFiles: 1 });
    expect(await totals()).toEqual(before);
    expect(await mark()).toBe('1001');
  });

  it('leaves nothing behind when the unit fails midway', async () => {
    const before = await totals();
    const failing = message(9, { attachments: [file('f')] });
    failing.reply = { parentId: null, json: () => { throw new Error('reply failed'); } };
    await expect(e.chat.insertChatMessages(link, [message(8, { attachments: [file('e')] }), failing], NOW, { advanceMarkTo: '3000' })).rejects.toThrow('reply failed');
    expect(await totals()).toEqual(before);
    expect(await mark()).toBe('1001');
    // The numbering did not move: the next message takes the next number.
    await e.chat.insertChatMessages(link, [message(8)], NOW);
    expect(await e.query('SELECT seq FROM alerts WHERE id = ?', ['alt_m08'])).toEqual([{ seq: 7 }]);
  });

  it('edits a message in place: text alone, then files replaced with the old keys released; a missing one is reported', async () => {
    await e.reads.markAllRead('u1', ['ch1'], NOW);
    expect(await e.chat.editChatMessage(link, 'alt_m01', { text: 'edited', editedAt: NOW + 50, files: null, now: NOW + 60 })).toEqual({ updated: true, released: [] });
    expect(await e.otherChat.chatMessage('alt_m01', 'ch1')).toEqual({
      message: 'edited', updatedAt: NOW + 50,
      attachments: [
        { alertId: 'alt_m01', position: 0, mediaKey: 'a', mime: 'image/png', kind: 'image', name: 'a.png', size: 10 },
        { alertId: 'alt_m01', position: 1, mediaKey: 'b', mime: 'image/png', kind: 'image', name: 'b.png', size: 10 },
      ],
    });
    const replaced = await e.otherChat.editChatMessage(link, 'alt_m01', { text: 'edited', editedAt: NOW + 70, files: [file('b'), file('n')], now: NOW + 80 });
    expect({ ...replaced, released: [...replaced.released].sort() }).toEqual({ updated: true, released: ['a', 'b'] });
    expect(await e.query('SELECT media_key AS k FROM alert_attachments WHERE alert_id = ? ORDER BY position', ['alt_m01'])).toEqual([{ k: 'b' }, { k: 'n' }]);
    expect(await e.query('SELECT type FROM alert_events WHERE alert_id = ? ORDER BY id', ['alt_m01'])).toEqual([{ type: 'alert.created' }, { type: 'alert.updated' }, { type: 'alert.updated' }]);
    expect(await e.chat.editChatMessage(link, 'alt_nope', { text: 'x', editedAt: NOW, files: [file('m')], now: NOW })).toEqual({ updated: false, released: [] });
    expect(await e.chat.editChatMessage({ ...link, channelId: 'ch2' }, 'alt_m02', { text: 'x', editedAt: NOW, files: null, now: NOW })).toEqual({ updated: false, released: [] });
    expect(await e.chat.chatMessage('alt_m02', 'ch2')).toBeUndefined();
    // An edit does not resurface.
    expect(await unread()).toBe(0);
  });

  it('removes messages with their files and read exceptions, keeping unread counts exact above and below the watermark', async () => {
    await e.chat.insertChatMessages(link, [message(10, { attachments: [file('r')] }), message(11), message(12)], NOW);
    expect(await unread()).toBe(3);
    const m11 = (await e.reads.alert('alt_m11'))!;
    await e.reads.setRead('u1', m11, true);
    expect(await unread()).toBe(2);
    expect(await count('read_exceptions')).toBe(1);
    const gone = await e.otherChat.removeChatMessages(link, ['alt_m10', 'alt_m11', 'alt_m02', 'alt_nope', 'alt_m10'], NOW + 90);
    expect({ ...gone, released: [...gone.released].sort() }).toEqual({ removed: 3, released: ['r'] });
    // m10 was unread (above the watermark), m11 read by exception, m02 below the watermark: one unread left (m12).
    expect(await unread()).toBe(1);
    expect(await count('read_exceptions')).toBe(0);
    expect(await count('alert_attachments WHERE alert_id = ?', ['alt_m10'])).toBe(0);
    expect(await e.query('SELECT alert_id AS a, type FROM alert_events WHERE created_at = ? ORDER BY id', [NOW + 90]))
      .toEqual([{ a: 'alt_m10', type: 'alert.deleted' }, { a: 'alt_m11', type: 'alert.deleted' }, { a: 'alt_m02', type: 'alert.deleted' }]);
    // Another channel's link deletes nothing here.
    expect(await e.chat.removeChatMessages({ channelId: 'ch2', discordChannelId: '1100000000000000002' }, ['alt_m12'], NOW)).toEqual({ removed: 0, released: [] });
    expect(await e.query('SELECT alert_count AS n FROM channel_stats WHERE channel_id = ?', ['ch1'])).toEqual([{ n: 7 }]);
    await e.chat.insertChatMessages(link, [message(13)], NOW);
    expect(await unread()).toBe(2);
  });

  it('gives messages stored by two nodes at once distinct numbers, stores a message both send once, and keeps the furthest mark', async () => {
    const batches = Array.from({ length: 12 }, (_, i) => [message(20 + i), message(40)]);
    const results = await Promise.all(
      batches.map((b, i) => (i % 2 ? e.chat : e.otherChat).insertChatMessages(link, b, NOW, { advanceMarkTo: String(2000 + ((i * 5) % 12)) })),
    );
    expect(await mark()).toBe('2011');
    expect(results.reduce((sum, r) => sum + r.created, 0)).toBe(13);
    const seqs = (await e.query<{ seq: number }>('SELECT seq FROM alerts WHERE channel_id = ? AND seq > 10 ORDER BY seq', ['ch1'])).map((r) => Number(r.seq));
    expect(seqs).toEqual(Array.from({ length: 14 }, (_, i) => 11 + i));
    expect(await count('alert_events WHERE alert_id = ?', ['alt_m40'])).toBe(1);
    expect(await unread()).toBe(15);
  });
}

describe('chat writes contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, chat: store.chat, otherChat: other.chat, reads: store.reads };
  });
});

describePg('chat writes contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return { ...h, chat: new PgChatWrites(h.db.pool), otherChat: new PgChatWrites(h.other.pool), reads: new PgAlertReads(h.db.pool) };
  });
});
