import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv, type ChatMessage } from './bridge-env.js';

type Community = ChatMessage & { thread: { id: string; name: string } | null; tags: string[]; reactions: Array<{ emoji: string; count: number }> };

describeEngines('Discord bridge: threads, forum posts and reactions', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /** The messages of a channel (by slug) as the read API lists them, oldest first. */
  async function messages(e: BridgeEnv, slug = 'community', query = ''): Promise<Community[]> {
    const res = await e.h.call('GET', `/api/channels/${slug}/alerts?limit=100${query}`, { token: e.ws.ownerToken });
    expect(res.status).toBe(200);
    return (await bodyOf.chatPage(res)).alerts.reverse() as Community[];
  }

  async function until(e: BridgeEnv, pred: (ms: Community[]) => boolean, slug = 'community', what = 'messages'): Promise<Community[]> {
    let last: Community[] = [];
    await eventually(async () => pred((last = await messages(e, slug))), what);
    return last;
  }

  /** A second Alertbridge channel connected to a forum channel with tags. */
  async function forumChannel(e: BridgeEnv, media = false) {
    const forum = e.fake.community.addForumChannel(e.seed.guild.id, { name: 'feature-requests', tags: ['ui', 'api', 'bug'], media });
    const ch = await e.h.services.accounts.createChannel({ workspaceId: e.ws.ws.id, name: 'Requests', slug: 'requests', icon: '💡' });
    await e.links().connect(ch.id, forum.id);
    await e.bridge!.sync.tick();
    await e.caughtUp(forum.id);
    return forum;
  }

  it('stores thread messages in the parent channel with the thread; a rename and archiving keep the name current', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const plain = env.send({ content: 'in the channel' });
    const thread = fake.community.addThread(seed.channel.id, { name: 'login bug', ownerId: seed.alice.id });
    env.send({ channelId: thread.id, content: 'first in thread' });
    env.send({ channelId: thread.id, authorId: seed.bob.id, content: 'second in thread' });
    let all = await until(env, (ms) => ms.length === 3);
    expect(all[0]).toMatchObject({ id: alertIdFromSnowflake(plain.id), thread: null, tags: [], reactions: [] });
    expect(all.slice(1).map((m) => m.thread)).toEqual([{ id: thread.id, name: 'login bug' }, { id: thread.id, name: 'login bug' }]);

    fake.community.updateThread(thread.id, { name: 'login bug (fixed)' });
    all = await until(env, (ms) => ms[2]!.thread?.name === 'login bug (fixed)');
    expect(all[1]!.thread).toEqual({ id: thread.id, name: 'login bug (fixed)' });
    fake.community.updateThread(thread.id, { archived: true, name: 'login bug [archived]' });
    all = await until(env, (ms) => ms[1]!.thread?.name === 'login bug [archived]');
    expect(all.filter((m) => m.thread).length).toBe(2);
    const rows = await env.query<{ archived: number | boolean; name: string }>('SELECT archived, name FROM chat_threads WHERE thread_id = ?', [thread.id]);
    expect(rows.map((r) => [Boolean(r.archived), r.name])).toEqual([[true, 'login bug [archived]']]);
  });

  it('a thread started from a message makes that message its starter; private threads arrive once the bot is added', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const starter = env.send({ content: 'deploys are slow' });
    await until(env, (ms) => ms.length === 1);
    fake.community.addThread(seed.channel.id, { name: 'deploys are slow', fromMessageId: starter.id, ownerId: seed.alice.id });
    env.send({ channelId: starter.id, content: 'since Tuesday' });
    const all = await until(env, (ms) => ms.length === 2 && ms[0]!.thread !== null);
    expect(all.map((m) => m.thread)).toEqual([{ id: starter.id, name: 'deploys are slow' }, { id: starter.id, name: 'deploys are slow' }]);

    const secret = fake.community.addThread(seed.channel.id, { name: 'mods only', private: true, ownerId: seed.owner.id });
    env.send({ channelId: secret.id, authorId: seed.owner.id, content: 'not yet visible' });
    fake.community.addThreadMember(secret.id, fake.botUser.id);
    await env.bridge!.sync.idle();
    env.send({ channelId: secret.id, authorId: seed.owner.id, content: 'now visible' });
    const after = await until(env, (ms) => ms.length === 3);
    expect(after[2]).toMatchObject({ message: 'now visible', thread: { id: secret.id, name: 'mods only' } });
  });

  it('forum posts: starter and replies carry the post and its tags by name; a tag change updates them', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const forum = await forumChannel(env);
    const { thread, starter } = fake.community.addForumPost(forum.id, { title: 'Dark mode', authorId: seed.alice.id, content: 'please add dark mode', tags: ['ui'] });
    env.send({ channelId: thread.id, authorId: seed.bob.id, content: '+1' });
    let all = await until(env, (ms) => ms.length === 2, 'requests');
    expect(all[0]).toMatchObject({ id: alertIdFromSnowflake(starter.id), thread: { id: thread.id, name: 'Dark mode' }, tags: ['ui'] });
    expect(all[1]).toMatchObject({ thread: { id: thread.id, name: 'Dark mode' }, tags: ['ui'] });
    fake.community.updateThread(thread.id, { tags: ['ui', 'bug'] });
    all = await until(env, (ms) => ms.every((m) => m.tags.length === 2), 'requests');
    expect(all.map((m) => m.tags)).toEqual([['ui', 'bug'], ['ui', 'bug']]);
    // The text channel's messages are untouched.
    expect(await messages(env)).toEqual([]);
  });

  it('a media channel (type 16) connects like a forum', async () => {
    env = await BridgeEnv.create({ engine });
    const forum = await forumChannel(env, true);
    env.fake.community.addForumPost(forum.id, { title: 'Screenshot', authorId: env.seed.alice.id, content: 'look', tags: ['bug'] });
    const all = await until(env, (ms) => ms.length === 1, 'requests');
    expect(all[0]).toMatchObject({ thread: { name: 'Screenshot' }, tags: ['bug'] });
  });

  it('reaction add, remove, remove-emoji and remove-all keep the counts; custom emoji read :name:', async () => {
    env = await BridgeEnv.create({ engine });
    const { fake, seed } = env;
    const msg = env.send({ content: 'vote for this' });
    await until(env, (ms) => ms.length === 1);
    const shipit = { id: '112233445566778899', name: 'shipit' };
    fake.community.react(seed.channel.id, msg.id, seed.alice.id, '👍');
    fake.community.react(seed.channel.id, msg.id, seed.bob.id, '👍');
    fake.community.react(seed.channel.id, msg.id, seed.owner.id, shipit);
    let all = await until(env, (ms) => ms[0]!.reactions.length === 2 && ms[0]!.reactions[0]!.count === 2);
    expect(all[0]!.reactions).toEqual([{ emoji: '👍', count: 2 }, { emoji: ':shipit:', count: 1 }]);
    fake.community.unreact(seed.channel.id, msg.id, seed.bob.id, '👍');
    all = await until(env, (ms) => ms[0]!.reactions[0]!.count === 1);
    expect(all[0]!.reactions).toEqual([{ emoji: '👍', count: 1 }, { emoji: ':shipit:', count: 1 }]);
    fake.community.clearReactions(seed.channel.id, msg.id, shipit);
    all = await until(env, (ms) => ms[0]!.reactions.length === 1);
    expect(all[0]!.reactions).toEqual([{ emoji: '👍', count: 1 }]);
    fake.community.react(seed.channel.id, msg.id, seed.bob.id, '🎉');
    await until(env, (ms) => ms[0]!.reactions.length === 2);
    fake.community.clearReactions(seed.channel.id, msg.id);
    all = await until(env, (ms) => ms[0]!.reactions.length === 0);
    const [row] = await env.query<{ n: number; j: string | null }>('SELECT reaction_count AS n, reactions_json AS j FROM alerts WHERE id = ?', [alertIdFromSnowflake(msg.id)]);
    expect(row).toEqual({ n: 0, j: null });
  });
});
