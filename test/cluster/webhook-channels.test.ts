import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgNotifyBus, TOPICS } from '../../src/db/pg/notify-bus.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAccountRows } from '../../src/db/shared/account-rows.js';
import { PgWebhookChannels } from '../../src/db/pg/webhook-channels.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { SqliteWebhookChannels } from '../../src/db/sqlite/webhook-channels.js';
import type { WebhookChannels } from '../../src/domain/webhook/webhook-channels.js';
import { eventually } from '../helpers/poll.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Chat', slug: 'chat', icon: '💬', is_private: false, webhook_token: 'whk_2', signing_secret: 's3cret', created_at: 2 },
  ]],
  ['discord_links', [{ channel_id: 'ch2', discord_channel_id: 'd2', created_at: 1 }]],
];

const DEPLOYS = { id: 'ch1', name: 'Deploys', slug: 'deploys', workspaceId: 'w1', workspaceName: 'Acme', chatConnected: false, signingSecret: null };
const CHAT = { id: 'ch2', name: 'Chat', slug: 'chat', workspaceId: 'w1', workspaceName: 'Acme', chatConnected: true, signingSecret: 's3cret' };

/** The lookup's answers are the same on both engines. */
function contract(open: () => Promise<EngineHandle & { channels: WebhookChannels }>) {
  let e: EngineHandle & { channels: WebhookChannels };
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());

  it('finds a channel by its webhook token, with its workspace, chat link and signing secret; an unknown token finds nothing', async () => {
    expect(await e.channels.find('whk_1')).toEqual(DEPLOYS);
    expect(await e.channels.find('whk_2')).toEqual(CHAT);
    expect(await e.channels.find('whk_1')).toEqual(DEPLOYS);
    expect(await e.channels.find('whk_nope')).toBeUndefined();
  });

  it('another connection rotating a token: the old one finds nothing, the new one the channel', async () => {
    expect(await e.channels.find('whk_1')).toEqual(DEPLOYS);
    await e.exec("UPDATE channels SET webhook_token = 'whk_1b' WHERE id = 'ch1'");
    await eventually(async () => (await e.channels.find('whk_1')) === undefined, 'the old token to be refused');
    expect(await e.channels.find('whk_1b')).toEqual(DEPLOYS);
  });
}

describe('webhook channel lookup on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, channels: new SqliteWebhookChannels(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('webhook channel lookup on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    const bus = new PgNotifyBus({ url: e.url, pool: e.db.pool });
    const channels = new PgWebhookChannels(new PgExecutor(e.db.pool), bus);
    await bus.start();
    return { ...e, channels, close: () => bus.stop().then(() => e.close()) };
  });
});

/** Two nodes, each with its own pool, listener and cache; a TTL far beyond the test, so only notifications can explain what node B sees. */
describePg('webhook channel caches across the nodes of a cluster', () => {
  let e: Awaited<ReturnType<typeof pgEngine>>;
  let nodeB: PgDb;
  let busA: PgNotifyBus;
  let busB: PgNotifyBus;
  let b: PgWebhookChannels;
  let accountsA: SqlAccountRows;
  /** Statements node B's pool ran (each lookup that missed its cache is one). */
  let queriesB = 0;
  beforeAll(async () => {
    e = await pgEngine(FIXTURE);
    nodeB = await openPg(e.url, { migrate: false });
    nodeB.pool.on('acquire', () => queriesB++);
    busA = new PgNotifyBus({ url: e.url, pool: e.db.pool });
    busB = new PgNotifyBus({ url: e.url, pool: nodeB.pool, reconnectMs: 50 });
    b = new PgWebhookChannels(new PgExecutor(nodeB.pool), busB, { ttlMs: 600_000 });
    accountsA = new SqlAccountRows(new PgExecutor(e.db.pool));
    await Promise.all([busA.start(), busB.start()]);
  });
  afterAll(async () => {
    await Promise.all([busA.stop(), busB.stop()]);
    await nodeB.close();
    await e.close();
  });

  /** Node B answers `whk` from its cache (no statement). */
  const cachedOnB = async (token: string) => {
    const before = queriesB;
    const channel = await b.find(token);
    return channel !== undefined && queriesB === before;
  };

  it('a token rotated on node A is refused on node B as soon as the notification arrives, not after the TTL', async () => {
    expect(await b.find('whk_1')).toEqual(DEPLOYS);
    expect(await cachedOnB('whk_1')).toBe(true);
    const rotatedAt = performance.now();
    await accountsA.updateChannel('ch1', { webhookToken: 'whk_rotated' });
    await eventually(async () => (await b.find('whk_1')) === undefined, 'node B to refuse the old token', { timeoutMs: 2_000 });
    expect(performance.now() - rotatedAt).toBeLessThan(2_000);
    expect(await b.find('whk_rotated')).toEqual(DEPLOYS);
    expect(await cachedOnB('whk_rotated')).toBe(true);
  });

  it('a Discord link made or a channel removed on node A is seen on node B', async () => {
    expect(await b.find('whk_rotated')).toEqual(DEPLOYS);
    await e.db.pool.query("INSERT INTO discord_links (channel_id, discord_channel_id, created_at) VALUES ('ch1', 'd1', 1)");
    await eventually(async () => (await b.find('whk_rotated'))?.chatConnected === true, 'node B to see the link');
    expect(await b.find('whk_2')).toEqual(CHAT);
    await e.db.pool.query("DELETE FROM channels WHERE id = 'ch2'");
    await eventually(async () => (await b.find('whk_2')) === undefined, 'node B to refuse the removed channel\'s token');
  });

  it('after its listener connection drops, node B serves nothing from its cache until it listens again, then re-reads', async () => {
    await accountsA.updateChannel('ch1', { webhookToken: 'whk_gap' });
    await eventually(async () => cachedOnB('whk_gap'), 'node B to cache the channel');
    const admin = new pg.Client({ connectionString: e.url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [busB.backendPid]);
    await admin.end();
    await eventually(() => !busB.isListening(TOPICS.webhookChannels), 'node B to notice its listener is gone');
    // The rotation's notification is lost for node B: it is not listening.
    await accountsA.updateChannel('ch1', { webhookToken: 'whk_after_gap' });
    expect(await b.find('whk_gap')).toBeUndefined();
    expect(await cachedOnB('whk_after_gap')).toBe(false);
    await eventually(() => busB.isListening(TOPICS.webhookChannels), 'node B to listen again');
    expect(await b.find('whk_gap')).toBeUndefined();
    expect(await b.find('whk_after_gap')).toMatchObject({ id: 'ch1' });
    expect(await cachedOnB('whk_after_gap')).toBe(true);
  });
});
