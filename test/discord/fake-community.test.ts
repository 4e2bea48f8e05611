import { once } from 'node:events';
import { ChannelType, Client, Events, GatewayIntentBits, Partials, type ClientEvents, type ForumChannel, type ThreadChannel } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../helpers/fake-discord/index.js';

// The fake's threads, forum channels and reactions, read by the real discord.js client.
delete process.env.SHARDS;
delete process.env.SHARD_COUNT;

let fake: FakeDiscord;
let seed: ReturnType<FakeDiscord['seedGuild']>;
let client: Client<true>;

function next<E extends keyof ClientEvents>(event: E, ms = 3_000): Promise<ClientEvents[E]> {
  return once(client, event, { signal: AbortSignal.timeout(ms) }) as unknown as Promise<ClientEvents[E]>;
}

beforeEach(async () => {
  fake = new FakeDiscord();
  await fake.start();
  seed = fake.seedGuild();
  client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildMessageReactions],
    partials: [Partials.Message, Partials.Channel, Partials.Reaction, Partials.User],
    rest: { api: fake.apiUrl, globalRequestsPerSecond: 10_000 },
  }) as Client<true>;
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
});

afterEach(async () => {
  await client.destroy();
  await fake.stop();
});

describe('fake Discord: threads, forums, reactions', () => {
  it('thread create, messages in it, rename, archive and delete reach discord.js', async () => {
    const created = next(Events.ThreadCreate);
    const thread = fake.community.addThread(seed.channel.id, { name: 'incident 42', ownerId: seed.alice.id });
    const [t] = await created;
    expect(t.id).toBe(thread.id);
    expect(t.parentId).toBe(seed.channel.id);
    const message = next(Events.MessageCreate);
    fake.sendMessage({ channelId: thread.id, authorId: seed.alice.id, content: 'in the thread' });
    const [m] = await message;
    expect(m.channel.isThread() && m.channel.parentId).toBe(seed.channel.id);
    const updated = next(Events.ThreadUpdate);
    fake.community.updateThread(thread.id, { name: 'incident 42 (fixed)', archived: true });
    const [, after] = await updated;
    expect([after.name, after.archived]).toEqual(['incident 42 (fixed)', true]);
    const deleted = next(Events.ThreadDelete);
    fake.community.deleteThread(thread.id);
    expect((await deleted)[0].id).toBe(thread.id);
  });

  it('a forum channel has tags; a post is a thread with applied tags and a starter message of the same id', async () => {
    const forumUpdate = next(Events.ChannelUpdate);
    const forum = fake.community.addForumChannel(seed.guild.id, { name: 'feature-requests', tags: ['ui', 'api'] });
    await forumUpdate;
    const f = client.channels.cache.get(forum.id) as ForumChannel;
    expect(f.type).toBe(ChannelType.GuildForum);
    expect(f.availableTags.map((t) => t.name)).toEqual(['ui', 'api']);
    const created = next(Events.ThreadCreate);
    const { thread, starter } = fake.community.addForumPost(forum.id, { title: 'Dark mode', authorId: seed.alice.id, content: 'please', tags: ['ui'] });
    const [t] = await created;
    expect(starter.id).toBe(thread.id);
    expect(t.appliedTags).toEqual([fake.community.tagId(forum.id, 'ui')]);
    const updated = next(Events.ThreadUpdate);
    fake.community.updateThread(thread.id, { tags: ['ui', 'api'] });
    expect((await updated)[1].appliedTags).toHaveLength(2);
  });

  it('private threads are visible only once the bot is added; archived lists page over REST', async () => {
    const secret = fake.community.addThread(seed.channel.id, { name: 'mods', private: true, ownerId: seed.alice.id });
    expect(client.channels.cache.has(secret.id)).toBe(false);
    const created = next(Events.ThreadCreate);
    fake.community.addThreadMember(secret.id, fake.botUser.id);
    expect((await created)[0].id).toBe(secret.id);

    const old = fake.community.addThread(seed.channel.id, { name: 'old', ownerId: seed.alice.id });
    fake.community.updateThread(old.id, { archived: true });
    const channel = client.channels.cache.get(seed.channel.id);
    if (!channel || channel.type !== ChannelType.GuildText) throw new Error('no text channel');
    const archived = await channel.threads.fetchArchived({ type: 'public', fetchAll: true });
    expect([...archived.threads.keys()]).toEqual([old.id]);
    const active = await client.guilds.cache.get(seed.guild.id)!.channels.fetchActiveThreads();
    expect([...active.threads.keys()]).toContain(secret.id);
  });

  it('reaction add, remove, remove-all and remove-emoji arrive, and message objects carry exact counts', async () => {
    const msg = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'vote' });
    const added = next(Events.MessageReactionAdd);
    fake.community.react(seed.channel.id, msg.id, seed.bob.id, '👍');
    const [reaction, user] = await added;
    expect([reaction.emoji.name, user.id]).toEqual(['👍', seed.bob.id]);
    fake.community.react(seed.channel.id, msg.id, seed.alice.id, { id: '112233445566778899', name: 'shipit' });
    const removed = next(Events.MessageReactionRemove);
    fake.community.unreact(seed.channel.id, msg.id, seed.bob.id, '👍');
    expect((await removed)[0].emoji.name).toBe('👍');
    expect(fake.getMessage(seed.channel.id, msg.id)!.reactions!.map((r) => [r.emoji.name, r.count])).toEqual([['shipit', 1]]);
    const emojiGone = next(Events.MessageReactionRemoveEmoji);
    fake.community.clearReactions(seed.channel.id, msg.id, { id: '112233445566778899', name: 'shipit' });
    await emojiGone;
    fake.community.react(seed.channel.id, msg.id, seed.bob.id, '🎉');
    const all = next(Events.MessageReactionRemoveAll);
    fake.community.clearReactions(seed.channel.id, msg.id);
    await all;
    expect(fake.getMessage(seed.channel.id, msg.id)!.reactions).toBeUndefined();
  });

  it('GUILD_CREATE carries the active threads (a reconnecting bot knows them)', async () => {
    const thread = fake.community.addThread(seed.channel.id, { name: 'still open', ownerId: seed.alice.id, dispatch: false });
    await client.destroy();
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.apiUrl } }) as Client<true>;
    const ready = once(client, Events.ClientReady);
    await client.login(fake.token);
    await ready;
    expect((client.channels.cache.get(thread.id) as ThreadChannel).name).toBe('still open');
  });
});
