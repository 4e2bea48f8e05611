import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import type { MessagePayload } from '../helpers/fake-discord/index.js';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';

/** How often the fake CDN served a message's (first) attachment. */
const downloads = (e: BridgeEnv, m: MessagePayload) => e.fake.cdnRequests.filter((p) => p === new URL(m.attachments[0]!.url).pathname).length;

const image = (name: string, seed: number) => ({ attachments: [{ filename: name, data: png(seed), contentType: 'image/png' }] });


/** The next history read of the channel answers 429 "retry in 0.4 s": the backfill pass waits while live messages arrive. */
function rateLimitNextHistoryRead(e: BridgeEnv, channelId: string) {
  e.fake.injectFailure({
    path: `/channels/${channelId}/messages`,
    status: 429,
    headers: { 'retry-after': '0.4' },
    body: { message: 'You are being rate limited.', retry_after: 0.4, global: false },
  });
}

describeEngines('Discord bridge: nothing is lost while offline', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });
  const create = async (opts: Omit<Parameters<typeof BridgeEnv.create>[0] & object, 'engine'> = {}) => (env = await BridgeEnv.create({ ...opts, engine }));

  it('backfills messages posted during a gateway drop, in order, without duplicates', async () => {
    const env = await create();
    const { fake } = env;
    const before = env.send({ content: 'before the drop' });
    await env.waitForMessages(1);
    await env.caughtUp(); // a live message's mark is written just after its own commit
    expect(await env.syncedUntil()).toBe(before.id);

    const resumed = fake.waitForResume();
    fake.dropConnections();
    const missed = [env.missed({ content: 'missed 1' }), env.missed({ authorId: env.seed.bob.id, content: 'missed 2' })];
    // Dispatched while no socket is open: lost on the gateway, only the history has it.
    missed.push(env.send({ content: 'missed 3 (dispatched into the void)' }));
    await resumed;
    const after = env.send({ content: 'after the resume' });

    const alerts = await env.waitForMessages(5);
    expect(alerts.map((a) => a.message)).toEqual([
      'before the drop',
      'missed 1',
      'missed 2',
      'missed 3 (dispatched into the void)',
      'after the resume',
    ]);
    expect(alerts.map((a) => a.id)).toEqual([before, ...missed, after].map((m) => alertIdFromSnowflake(m.id)));
    expect(alerts[2]!.author).toMatchObject({ name: 'bob', role: 'member' });
    await env.caughtUp();
    expect(await env.syncedUntil()).toBe(after.id);
    expect(fake.identifyCount).toBe(1);
    expect(fake.resumeCount).toBe(1);
    // History was asked from the mark, not from the newest stored message.
    const history = fake.requestsTo(`/channels/${env.seed.channel.id}/messages`);
    expect(history.at(-1)!.query).toMatchObject({ limit: '100' });
    expect(history.some((r) => r.query.after === before.id)).toBe(true);
    expect(await env.countRows()).toBe(5);
  });

  it('pages through long gaps (more than 100 messages) oldest first', async () => {
    const env = await create();
    const { fake } = env;
    const anchor = env.send({ content: 'anchor' });
    await env.waitForMessages(1);
    await env.caughtUp();
    const resumed = fake.waitForResume();
    fake.dropConnections();
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) ids.push(env.missed({ content: `gap ${i}` }).id);
    await resumed;
    await eventually(async () => (await env.countRows()) === 251, '251 rows');
    await env.caughtUp();
    expect(await env.syncedUntil()).toBe(ids.at(-1));
    const rows = await env.query<{ e: string; k: string }>('SELECT external_id AS e, activity_key AS k FROM alerts WHERE channel_id = ? ORDER BY id', [env.channel.id]);
    expect(rows.map((r) => r.e)).toEqual([anchor.id, ...ids]);
    // Pages are stored oldest first, so activity keys follow Discord's order too.
    expect([...rows.map((r) => r.k)].sort()).toEqual(rows.map((r) => r.k));
    expect(fake.requestsTo(`/channels/${env.seed.channel.id}/messages`).filter((r) => r.query.after).length).toBeGreaterThanOrEqual(3);
  });

  it('a live message during a backfill is stored but does not move the sync mark past the gap', async () => {
    const env = await create();
    const { fake, seed } = env;
    const before = env.send({ content: 'before' });
    await env.waitForMessages(1);
    await env.caughtUp();

    const resumed = fake.waitForResume();
    fake.dropConnections();
    const missed = [env.missed({ content: 'gap 1' }), env.missed({ content: 'gap 2' })];
    // The backfill's history request is slowed by a rate limit (Discord says: retry in 0.4 s).
    rateLimitNextHistoryRead(env, seed.channel.id);
    await resumed;
    await eventually(() => env.bridge!.sync.stateOf(seed.channel.id)!.backfilling, 'the backfill to start');
    const live = env.send({ content: 'live during the backfill' });

    // The live message is readable at once...
    await env.waitForMessages(2, (l) => l[1]!.message === 'live during the backfill');
    // ...but the mark still says "complete up to `before`": a crash now would refetch the gap.
    expect(env.bridge!.sync.stateOf(seed.channel.id)!.backfilling).toBe(true);
    expect(await env.syncedUntil()).toBe(before.id);

    const alerts = await env.waitForMessages(4);
    expect(alerts.map((a) => a.message)).toEqual(['before', 'gap 1', 'gap 2', 'live during the backfill']);
    expect(alerts.map((a) => a.id)).toEqual([before, ...missed, live].map((m) => alertIdFromSnowflake(m.id)));
    await env.caughtUp();
    expect(await env.syncedUntil()).toBe(live.id);
    expect(await env.countRows()).toBe(4);
  });

  it('a failed backfill keeps the mark; the next connection retries at once and fills the gap', async () => {
    // A retry backoff far longer than the test: only a new gateway connection retries.
    const env = await create({ bridge: { retryBaseMs: 60_000, retryMaxMs: 60_000 } });
    const { fake, seed } = env;
    const before = env.send({ content: 'before' });
    await env.waitForMessages(1);
    await env.caughtUp();
    let resumed = fake.waitForResume();
    fake.dropConnections();
    env.missed({ content: 'gap' });
    fake.injectFailure({ path: `/channels/${seed.channel.id}/messages`, status: 403, body: { message: 'Missing Access', code: 50001 } });
    await resumed;
    await eventually(() => fake.requestsTo(`/channels/${seed.channel.id}/messages`).some((r) => r.status === 403), 'the failed history request');
    const live = env.send({ content: 'live' });
    await env.waitForMessages(2, (l) => l[1]!.message === 'live');
    await env.bridge!.sync.idle();
    expect(env.bridge!.sync.stateOf(seed.channel.id)!.isLive).toBe(false);
    expect(await env.syncedUntil()).toBe(before.id);

    resumed = fake.waitForResume();
    fake.dropConnections();
    await resumed;
    const alerts = await env.waitForMessages(3);
    expect(alerts.map((a) => a.message)).toEqual(['before', 'gap', 'live']);
    await env.caughtUp();
    expect(await env.syncedUntil()).toBe(live.id);
  });

  it('a service restart backfills what was posted while it was down', async () => {
    const env = await create();
    const { fake, seed } = env;
    const first = env.send({ content: 'while up' });
    await env.waitForMessages(1);
    // Mark all read before the restart: what comes in later must be unread.
    await env.h.call('POST', '/api/alerts/mark-all-read', { token: env.ws.memberToken, json: { channelId: env.channel.id } });

    await env.stopService();
    expect(fake.sessionCount).toBe(0);
    const down = [
      env.missed({ content: 'while down 1' }),
      env.missed({ authorId: seed.owner.id, content: 'while down 2', replyTo: first.id }),
    ];
    fake.editMessage(seed.channel.id, down[0]!.id, 'while down 1 (edited)', { dispatch: false });

    await env.restartService();
    const alerts = await env.waitForMessages(3);
    expect(alerts.map((a) => a.message)).toEqual(['while up', 'while down 1 (edited)', 'while down 2']);
    expect(alerts[1]!.editedAt).not.toBeNull();
    expect(alerts[2]!.replyTo).toEqual({ messageId: alertIdFromSnowflake(first.id), author: 'Alice A.', excerpt: 'while up' });
    expect(fake.identifyCount).toBe(2);
    expect(await env.syncedUntil()).toBe(down[1]!.id);

    const mine = await env.list('', env.ws.memberToken);
    expect(mine.alerts.map((a) => a.isRead)).toEqual([false, false, true]);
    const channels = await bodyOf.channels(await env.h.call('GET', '/api/channels', { token: env.ws.memberToken }));
    expect(channels.find((c) => c.id === env.channel.id)!._count.alerts).toBe(2);

    // Live again after the restart, no duplicates.
    env.send({ content: 'after restart' });
    await env.waitForMessages(4);
    expect(await env.countRows()).toBe(4);
  });

  it('a first connection brings in the recent history, then follows live', async () => {
    const env = await create({ connect: false });
    const { fake, seed } = env;
    const older = [env.missed({ content: 'old 1' }), env.missed({ content: 'old 2' })];
    await env.links().connect(env.channel.id, seed.channel.id);
    // Picked up by the periodic re-read, no restart.
    await eventually(() => env.bridge!.sync.linkOf(seed.channel.id), 'the new link');
    await env.caughtUp();
    env.send({ content: 'new' });
    const alerts = await env.waitForMessages(3);
    expect(alerts.map((a) => a.message)).toEqual(['old 1', 'old 2', 'new']);
    await env.caughtUp(); // the live message's mark is written after its own commit
    expect(await env.syncedUntil()).toBe(fake.history(seed.channel.id).at(-1)!.id);
    expect(older).toHaveLength(2);
  });

  it('a pass that fetches a live message again (stored during the pass) does not download its file again', async () => {
    const env = await create();
    const { fake, seed } = env;
    env.send({ content: 'before' });
    await env.waitForMessages(1);
    await env.caughtUp();

    const resumed = fake.waitForResume();
    fake.dropConnections();
    const gap = env.missed({ content: 'gap', ...image('gap.png', 31) });
    // The pass's history request waits 0.4 s (rate limit): the live message is stored meanwhile, and is in that page.
    rateLimitNextHistoryRead(env, seed.channel.id);
    await resumed;
    await eventually(() => env.bridge!.sync.stateOf(seed.channel.id)!.backfilling, 'the backfill to start');
    const live = env.send({ content: 'live during the backfill', ...image('live.png', 32) });
    const sentAt = fake.requests.length;
    await env.waitForMessages(2, (l) => l[1]!.message === 'live during the backfill');
    expect(env.bridge!.sync.stateOf(seed.channel.id)!.backfilling).toBe(true);

    const alerts = await env.waitForMessages(3);
    await env.caughtUp();
    expect(alerts.map((a) => a.message)).toEqual(['before', 'gap', 'live during the backfill']);
    // The pass did read a page answered after the live message was posted (so holding it).
    const history = `/channels/${seed.channel.id}/messages`;
    expect(fake.requests.slice(sentAt).some((r) => r.path === history && r.status === 200 && r.query.after)).toBe(true);
    expect(downloads(env, gap)).toBe(1);
    expect(downloads(env, live)).toBe(1);
    for (const a of alerts.slice(1)) {
      expect(a.attachments).toHaveLength(1);
      expect((await env.h.call('GET', new URL(a.attachments[0]!.url).pathname)).status).toBe(200);
    }
    expect(await env.countRows()).toBe(3);
  });

  it('after a crash before a live message\'s mark write, the restart\'s backfill does not download its file again', async () => {
    const env = await create();
    const { fake, seed } = env;
    const before = env.send({ content: 'before' });
    await env.waitForMessages(1);
    await env.caughtUp();
    const stored = env.send({ content: 'stored', ...image('stored.png', 41) });
    await env.waitForMessages(2);
    await env.caughtUp();
    expect(downloads(env, stored)).toBe(1);
    // As if the process died between the message's commit and its mark write.
    await env.query('UPDATE discord_links SET synced_until = ? WHERE channel_id = ?', [before.id, env.channel.id]);

    await env.stopService();
    const missed = env.missed({ content: 'while down', ...image('missed.png', 42) });
    await env.restartService();
    const alerts = await env.waitForMessages(3);
    expect(alerts.map((a) => a.message)).toEqual(['before', 'stored', 'while down']);
    expect(fake.requestsTo(`/channels/${seed.channel.id}/messages`).some((r) => r.query.after === before.id)).toBe(true);
    expect(downloads(env, stored)).toBe(1);
    expect(downloads(env, missed)).toBe(1);
    expect(await env.syncedUntil()).toBe(missed.id);
    for (const a of alerts.slice(1)) {
      expect((await env.h.call('GET', new URL(a.attachments[0]!.url).pathname)).status).toBe(200);
    }
  });
});
