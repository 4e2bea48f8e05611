import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv, type ChatMessage } from './bridge-env.js';

type Community = ChatMessage & { thread: { id: string; name: string } | null; tags: string[]; reactions: Array<{ emoji: string; count: number }> };

describeEngines('Discord bridge: backfill of threads and reactions', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  const byId = (all: ChatMessage[]) => new Map((all as Community[]).map((m) => [m.id, m]));

  it('after a gateway drop: missed messages of active threads and of threads archived since, once each, with exact reactions', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const c = fake.community;
    // Archived long before the mark: never asked for again.
    const old = c.addThread(seed.channel.id, { name: 'old', ownerId: seed.alice.id });
    env.send({ channelId: old.id, content: 'old thread' });
    c.updateThread(old.id, { archived: true });
    const active = c.addThread(seed.channel.id, { name: 'active', ownerId: seed.alice.id });
    const first = env.send({ channelId: active.id, content: 'active 1' });
    const closing = c.addThread(seed.channel.id, { name: 'closing', ownerId: seed.bob.id });
    env.send({ channelId: closing.id, authorId: seed.bob.id, content: 'closing 1' });
    const anchor = env.send({ content: 'anchor' });
    await env.waitForMessages(4);
    await env.caughtUp();
    expect(await env.syncedUntil()).toBe(anchor.id);

    const resumed = fake.waitForResume();
    fake.dropConnections();
    const missed = [
      env.missed({ channelId: active.id, content: 'active 2 (missed)' }),
      env.missed({ channelId: closing.id, authorId: seed.bob.id, content: 'closing 2 (missed)' }),
    ];
    fake.advanceTime(1_000);
    c.updateThread(closing.id, { archived: true, dispatch: false });
    fake.advanceTime(1_000);
    const fresh = c.addThread(seed.channel.id, { name: 'new while away', ownerId: seed.alice.id, dispatch: false });
    missed.push(env.missed({ channelId: fresh.id, content: 'fresh 1 (missed)' }));
    // Reactions given while away: a backfilled message carries its counts from the message object.
    c.react(active.id, missed[0]!.id, seed.bob.id, '👍', { dispatch: false });
    c.react(active.id, missed[0]!.id, seed.alice.id, '👍', { dispatch: false });
    c.react(fresh.id, missed[2]!.id, seed.bob.id, '🎉', { dispatch: false });
    await resumed;

    const all = await env.waitForMessages(7);
    await env.caughtUp();
    const m = byId(all);
    for (const msg of missed) expect(m.has(alertIdFromSnowflake(msg.id))).toBe(true);
    expect(m.get(alertIdFromSnowflake(missed[0]!.id))!.thread).toEqual({ id: active.id, name: 'active' });
    expect(m.get(alertIdFromSnowflake(missed[2]!.id))!.thread).toEqual({ id: fresh.id, name: 'new while away' });
    expect(m.get(alertIdFromSnowflake(missed[0]!.id))!.reactions).toEqual([{ emoji: '👍', count: 2 }]);
    expect(m.get(alertIdFromSnowflake(missed[2]!.id))!.reactions).toEqual([{ emoji: '🎉', count: 1 }]);
    expect(m.get(alertIdFromSnowflake(first.id))!.reactions).toEqual([]);
    expect(await env.countRows()).toBe(7);
    // Threads were read from the mark; the one archived before it was not read at all.
    expect(fake.requestsTo(`/channels/${active.id}/messages`).some((r) => r.query.after === anchor.id)).toBe(true);
    expect(fake.requestsTo(`/channels/${closing.id}/messages`).length).toBeGreaterThan(0);
    expect(fake.requestsTo(`/channels/${old.id}/messages`)).toEqual([]);

    // A second drop with nothing missed stores nothing twice.
    const again = fake.waitForResume();
    fake.dropConnections();
    await again;
    await env.caughtUp();
    expect(await env.countRows()).toBe(7);
  });

  it('after a restart: a forum post made while the service was down and replies to an existing post', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const c = fake.community;
    const forum = c.addForumChannel(seed.guild.id, { name: 'feature-requests', tags: ['ui', 'api'] });
    const ch = await env.h.services.accounts.createChannel({ workspaceId: env.ws.ws.id, name: 'Requests', slug: 'requests', icon: '💡' });
    await env.links().connect(ch.id, forum.id);
    await env.bridge!.sync.tick();
    await env.caughtUp(forum.id);
    fake.advanceTime(1_000);
    const post = c.addForumPost(forum.id, { title: 'Dark mode', authorId: seed.alice.id, content: 'please', tags: ['ui'] });
    const rows = async () => (await env!.query<{ n: number }>('SELECT count(*) AS n FROM alerts WHERE channel_id = ?', [ch.id]))[0]!.n;
    await eventually(async () => Number(await rows()) === 1, 'the live post');
    await env.caughtUp(forum.id);

    await env.stopService();
    fake.advanceTime(1_000);
    const reply = fake.postWhileDisconnected({ channelId: post.thread.id, authorId: seed.bob.id, content: '+1 (missed)' });
    fake.advanceTime(1_000);
    const other = c.addForumPost(forum.id, { title: 'API keys', authorId: seed.bob.id, content: 'rotate them', tags: ['api'], dispatch: false });
    c.react(other.thread.id, other.starter.id, seed.alice.id, '👍', { dispatch: false });
    await env.restartService();
    await env.caughtUp(forum.id);

    expect(Number(await rows())).toBe(3);
    const stored = await env.query<{ id: string; thread_json: string; tags_json: string; reaction_count: number }>(
      'SELECT id, thread_json, tags_json, reaction_count FROM alerts WHERE channel_id = ? ORDER BY id',
      [ch.id],
    );
    const row = (id: string) => stored.find((r) => r.id === alertIdFromSnowflake(id))!;
    expect(JSON.parse(row(reply.id).thread_json)).toEqual({ id: post.thread.id, name: 'Dark mode' });
    expect(JSON.parse(row(other.starter.id).tags_json)).toEqual(['api']);
    expect(Number(row(other.starter.id).reaction_count)).toBe(1);
  });
});
