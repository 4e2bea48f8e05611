import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlDiscordLinkRows } from '../../src/db/shared/discord-link-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { ChannelRecord } from '../../src/domain/account-rows.js';
import type { Accounts } from '../../src/domain/accounts.js';
import { DiscordLinks, type DiscordLinkRows } from '../../src/domain/chat/links.js';
import { AppError, notFound } from '../../src/domain/errors.js';
import { ManualClock } from '../../src/lib/clock.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the Discord link rows: the same rows on SQLite and PostgreSQL, the
 * same answers through the real DiscordLinks use case (connect, disconnect, status, list). Channel
 * look-up by id or slug is the account rows' job, which are not on PostgreSQL yet: both engines get
 * the same fixed directory of the fixture's channels, which also counts the cache invalidations.
 */
const CHANNELS: ChannelRecord[] = ['general', 'community', 'support'].map((slug, i) => ({
  id: `ch_${slug}`, workspaceId: 'w1', name: slug, slug, icon: '#', isPrivate: false, webhookToken: `whk_${i}`,
}));
const SNOW_A = '1300000000000000001';
const SNOW_B = '1300000000000000002';
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['channels', CHANNELS.map((c, i) => ({ id: c.id, workspace_id: 'w1', name: c.name, slug: c.slug, icon: c.icon, is_private: false, webhook_token: c.webhookToken, created_at: i }))],
  ['alerts', [1, 2].map((n) => ({
    id: `a${n}`, channel_id: 'ch_support', kind: 'chat', level: 'INFO', title: '', emoji: '', message: `m${n}`, activity_key: `k${n}`, seq: n, created_at: n, updated_at: n,
  }))],
];

interface Engine extends EngineHandle {
  rows: DiscordLinkRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let links: DiscordLinks;
  let changed = 0;
  const clock = new ManualClock(1_700_000_000_000);
  const directory: Pick<Accounts, 'requireChannel' | 'channelsChanged'> = {
    requireChannel: async (ref) => {
      const ch = CHANNELS.find((c) => c.id === ref || c.slug === ref);
      if (!ch) throw notFound(`channel ${ref}`);
      return ch;
    },
    channelsChanged: () => void changed++,
  };
  beforeAll(async () => {
    e = await open();
    links = new DiscordLinks(e.rows, directory, clock);
  });
  afterAll(() => e.close());
  const code = (p: Promise<unknown>) => p.then(() => 'ok', (err: unknown) => (err instanceof AppError ? err.code : String(err)));

  it('connects a channel, idempotently for the same pair, and tells the webhook cache', async () => {
    const link = { channelId: 'ch_general', channelSlug: 'general', discordChannelId: SNOW_A, guildId: null, guildName: null, channelName: null };
    expect(await links.connect('general', ` ${SNOW_A} `)).toEqual({ ...link, created: true });
    expect(changed).toBe(1);
    expect(await links.connect('ch_general', SNOW_A)).toEqual({ ...link, created: false });
    expect(await links.list()).toEqual([
      { channelId: 'ch_general', discordChannelId: SNOW_A, guildId: null, guildName: null, discordChannelName: null, syncedUntil: null, createdAt: clock.now() },
    ]);
  });

  it('refuses a second Discord channel for a channel, a Discord channel feeding two, and a non-snowflake, writing nothing', async () => {
    expect(await code(links.connect('general', SNOW_B))).toBe('discord-link-taken');
    expect(await code(links.connect('community', SNOW_A))).toBe('discord-link-taken');
    expect(await code(links.connect('community', 'general'))).toBe('invalid-body');
    expect(await code(links.connect('nope', SNOW_B))).toBe('not-found');
    expect(await e.query('SELECT COUNT(*) AS n FROM discord_links')).toEqual([{ n: 1 }]);
  });

  it('connects racing for one Discord channel (as from two nodes): exactly one wins, the other is refused', async () => {
    // Several rounds: the first warms the pool, so later rounds really overlap on two connections.
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all([code(links.connect('community', SNOW_B)), code(links.connect('support', SNOW_B))]);
      expect(results.sort()).toEqual(['discord-link-taken', 'ok']);
      expect(await e.query('SELECT COUNT(*) AS n FROM discord_links WHERE discord_channel_id = ?', [SNOW_B])).toEqual([{ n: 1 }]);
      await e.exec('DELETE FROM discord_links WHERE discord_channel_id = ?', [SNOW_B]);
    }
  });

  it('status shows names and the sync mark written by another connection, and the stored messages', async () => {
    await e.exec("UPDATE discord_links SET guild_name = 'Ops', discord_channel_name = 'alerts', synced_until = ? WHERE channel_id = 'ch_general'", ['1300000000000000009']);
    expect(await links.status('general')).toEqual({
      channelId: 'ch_general', channelSlug: 'general', discordChannelId: SNOW_A, guildId: null, guildName: 'Ops', channelName: 'alerts',
      connected: true, syncedUntil: '1300000000000000009', messages: 0,
    });
    expect(await links.status('support')).toEqual({ channelId: 'ch_support', channelSlug: 'support', connected: false, messages: 2 });
  });

  it('disconnects, keeping the messages, and refuses a channel that is not connected', async () => {
    await links.connect('support', SNOW_B);
    changed = 0;
    expect(await links.disconnect('support')).toEqual({ channelId: 'ch_support', discordChannelId: SNOW_B, disconnected: true, messagesKept: 2 });
    expect(changed).toBe(1);
    expect(await code(links.disconnect('support'))).toBe('not-found');
    expect((await links.list()).map((l) => l.channelId)).toEqual(['ch_general']);
  });
}

describe('Discord link rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, rows: new SqlDiscordLinkRows(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('Discord link rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    return { ...e, rows: new SqlDiscordLinkRows(new PgExecutor(e.db.pool)) };
  });
});
