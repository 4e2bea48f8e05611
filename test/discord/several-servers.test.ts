import { afterEach, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv, type ChatMessage } from './bridge-env.js';

type Community = ChatMessage & { thread: { id: string; name: string } | null; reactions: Array<{ emoji: string; count: number }> };

/**
 * One bot in two Discord servers: Ops (#alerts → Acme's `community`) and Lab (#feedback → Other's
 * `general`). Each message lands in its own workspace's channel only, with its own server's names
 * and roles, and neither workspace's token reads the other's.
 */
describeEngines('Discord bridge: one bot in two servers feeding two workspaces', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  async function list(e: BridgeEnv, slug: string, token: string): Promise<{ status: number; alerts: Community[] }> {
    const res = await e.h.call('GET', `/api/channels/${slug}/alerts?limit=100`, { token });
    if (res.status !== 200) return { status: res.status, alerts: [] };
    return { status: 200, alerts: (await bodyOf.chatPage(res)).alerts.reverse() as Community[] };
  }

  it('keeps each server’s messages, thread messages and reactions in its own workspace', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed, ws } = env;
    // Lab: alice owns it and is "Alice (Lab)" there; bob is a member without a nickname.
    const lab = fake.addGuild({ name: 'Lab', ownerId: seed.alice.id });
    fake.addMember(lab.id, seed.bob.id);
    const feedback = fake.addTextChannel(lab.id, { name: 'feedback' });
    await env.links().connect(ws.otherChannel.id, feedback.id);
    await env.bridge!.sync.tick();
    await env.caughtUp(feedback.id);

    env.send({ content: 'ops: deploy is slow' });
    const opsThread = fake.community.addThread(seed.channel.id, { name: 'slow deploys', ownerId: seed.alice.id });
    env.send({ channelId: opsThread.id, authorId: seed.bob.id, content: 'ops: in the thread' });
    fake.advanceTime(1_000);
    const labMsg = fake.sendMessage({ channelId: feedback.id, authorId: seed.alice.id, content: 'lab: the beta is great' });
    const labThread = fake.community.addThread(feedback.id, { name: 'beta notes', ownerId: seed.bob.id });
    fake.advanceTime(1_000);
    fake.sendMessage({ channelId: labThread.id, authorId: seed.bob.id, content: 'lab: in the thread' });
    fake.community.react(feedback.id, labMsg.id, seed.bob.id, '🎉');

    let ops: Community[] = [];
    let labSide: Community[] = [];
    await eventually(async () => {
      ops = (await list(env!, 'community', ws.ownerToken)).alerts;
      labSide = (await list(env!, 'general', ws.strangerToken)).alerts;
      return ops.length === 2 && labSide.length === 2 && labSide[0]!.reactions.length === 1;
    }, 'both servers’ messages stored');

    expect(ops.map((m) => [m.message, m.thread?.name ?? null])).toEqual([
      ['ops: deploy is slow', null],
      ['ops: in the thread', 'slow deploys'],
    ]);
    expect(labSide.map((m) => [m.message, m.thread?.name ?? null])).toEqual([
      ['lab: the beta is great', null],
      ['lab: in the thread', 'beta notes'],
    ]);
    expect(labSide[0]!.reactions).toEqual([{ emoji: '🎉', count: 1 }]);
    // Names and roles come from the message's own server: alice is a member of Ops and the owner of Lab.
    expect(ops[0]!.author).toMatchObject({ name: 'Alice A.', role: 'member' });
    expect(labSide[0]!.author).toMatchObject({ name: 'Alice', role: 'owner' });

    // Neither workspace's token reaches the other's messages: the slug resolves in the token's own workspace.
    expect(await list(env, 'community', ws.strangerToken)).toEqual({ status: 404, alerts: [] });
    expect((await list(env, 'general', ws.ownerToken)).alerts).toEqual([]);
    const threads = await env.h.call('GET', '/api/channels/community/threads', { token: ws.strangerToken });
    expect(threads.status).toBe(404);
    const [rows] = await env.query<{ n: number }>("SELECT count(*) AS n FROM alerts WHERE kind = 'chat' AND channel_id NOT IN (?, ?)", [env.channel.id, ws.otherChannel.id]);
    expect(rows!.n).toBe(0);

    // Each link learnt its own server's names.
    const links = await env.query<{ g: string; c: string }>('SELECT guild_name AS g, discord_channel_name AS c FROM discord_links ORDER BY guild_name');
    expect(links).toEqual([
      { g: 'Lab', c: 'feedback' },
      { g: 'Ops', c: 'alerts' },
    ]);
  });
});
