import { once } from 'node:events';
import {
  ChannelType,
  Client,
  Events,
  GatewayIntentBits,
  MessageType,
  Partials,
  type ClientEvents,
  type Message,
  type TextChannel,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeDiscord, snowflakeTime } from '../helpers/fake-discord/index.js';
import { eventually } from '../helpers/poll.js';

// The Client reads these; a sharded CI environment must not leak into the tests.
delete process.env.SHARDS;
delete process.env.SHARD_COUNT;

const ALL_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
];

let fake: FakeDiscord;
let seed: ReturnType<FakeDiscord['seedGuild']>;
const clients: Client[] = [];

function newClient(intents: GatewayIntentBits[] = ALL_INTENTS): Client {
  const client = new Client({
    intents,
    partials: [Partials.Message, Partials.Channel],
    rest: { api: fake.apiUrl, globalRequestsPerSecond: 10_000 },
  });
  clients.push(client);
  return client;
}

async function readyClient(intents?: GatewayIntentBits[]): Promise<Client<true>> {
  const client = newClient(intents);
  const ready = once(client, Events.ClientReady);
  await client.login(fake.token);
  await ready;
  return client as Client<true>;
}

/** The next emission of a client event (rejects after `ms`). */
function next<E extends keyof ClientEvents>(client: Client, event: E, ms = 3_000): Promise<ClientEvents[E]> {
  return once(client, event, { signal: AbortSignal.timeout(ms) }) as unknown as Promise<ClientEvents[E]>;
}

async function textChannel(client: Client, id: string): Promise<TextChannel> {
  const channel = await client.channels.fetch(id);
  if (!channel || channel.type !== ChannelType.GuildText) throw new Error('not a text channel');
  return channel;
}

beforeEach(async () => {
  fake = new FakeDiscord({ now: Date.UTC(2025, 0, 15, 12, 0, 0) });
  await fake.start();
  seed = fake.seedGuild('Ops');
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await fake.stop();
});

describe('FakeDiscord with the real discord.js client', () => {
  it('logs in and sees the guild with owner, roles, members and channels', async () => {
    const client = await readyClient();
    expect(client.user.id).toBe(fake.botUser.id);
    expect(client.user.bot).toBe(true);
    expect(fake.identifyCount).toBe(1);
    expect(fake.sessionCount).toBe(1);
    expect(fake.connectionUrls[0]).toBe('/gateway?v=10&encoding=json');
    expect(fake.requestsTo('/gateway/bot')).toHaveLength(1);

    const guild = client.guilds.cache.get(seed.guild.id)!;
    expect(guild.available).toBe(true);
    expect(guild.name).toBe('Ops');
    expect(guild.ownerId).toBe(seed.owner.id);
    expect((await guild.fetchOwner()).user.username).toBe('owner');
    expect(guild.roles.everyone.id).toBe(guild.id);
    expect(guild.roles.cache.get(seed.oncall.id)?.name).toBe('oncall');
    const alice = guild.members.cache.get(seed.alice.id)!;
    expect(alice.displayName).toBe('Alice A.');
    expect(alice.roles.cache.has(seed.oncall.id)).toBe(true);
    expect(guild.members.me?.id).toBe(fake.botUser.id);
    expect(guild.members.cache.size).toBe(4); // bot, owner, alice, bob
    const alerts = guild.channels.cache.get(seed.channel.id)!;
    expect(alerts.type).toBe(ChannelType.GuildText);
    expect(alerts.name).toBe('alerts');
    expect((alerts as TextChannel).topic).toBe('Alerts go here');
    expect(alerts.permissionsFor(guild.members.me!)?.has('ReadMessageHistory')).toBe(true);

    // Fetching all members goes over the gateway (op 8 → GUILD_MEMBERS_CHUNK).
    const all = await guild.members.fetch();
    expect(all.size).toBe(4);
    expect(fake.received.some((p) => p.op === 8)).toBe(true);
    // Single member / user via REST.
    const bob = await guild.members.fetch({ user: seed.bob.id, force: true });
    expect(bob.user.username).toBe('bob');
    expect(fake.requestsTo(`/guilds/${guild.id}/members/${seed.bob.id}`)).toHaveLength(1);
    const user = await client.users.fetch(seed.alice.id, { force: true });
    expect(user.globalName).toBe('Alice');

    // State added after READY is dispatched.
    const created = next(client, Events.ChannelCreate);
    fake.addTextChannel(guild.id, { name: 'late' });
    const [late] = await created;
    expect(late.name).toBe('late');
  });

  it('delivers MESSAGE_CREATE with member, mentions and cleanContent', async () => {
    const client = await readyClient();
    const got = next(client, Events.MessageCreate);
    const sent = fake.sendMessage({
      channelId: seed.channel.id,
      authorId: seed.alice.id,
      content: `disk full <@${seed.bob.id}> see <#${seed.general.id}> cc <@&${seed.oncall.id}> @here`,
    });
    const [message] = await got;
    expect(message.id).toBe(sent.id);
    expect(message.id).toMatch(/^\d{17,19}$/);
    expect(message.createdTimestamp).toBe(Date.UTC(2025, 0, 15, 12, 0, 0));
    expect(message.createdTimestamp).toBe(snowflakeTime(sent.id));
    expect(message.guildId).toBe(seed.guild.id);
    expect(message.author.id).toBe(seed.alice.id);
    expect(message.member?.displayName).toBe('Alice A.');
    expect(message.member?.roles.cache.has(seed.oncall.id)).toBe(true);
    expect(message.mentions.users.has(seed.bob.id)).toBe(true);
    expect(message.mentions.roles.has(seed.oncall.id)).toBe(true);
    expect(message.mentions.everyone).toBe(true);
    expect(message.cleanContent).toBe('disk full @bob see #general cc @oncall @here');
    expect(fake.history(seed.channel.id).map((m) => m.id)).toEqual([sent.id]);
  });

  it('delivers replies and webhook messages', async () => {
    const client = await readyClient();
    const first = next(client, Events.MessageCreate);
    const original = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'CPU at 99%' });
    await first;

    const second = next(client, Events.MessageCreate);
    fake.sendMessage({ channelId: seed.channel.id, authorId: seed.owner.id, content: 'ack', replyTo: original.id });
    const [reply] = await second;
    expect(reply.type).toBe(MessageType.Reply);
    expect(reply.reference?.messageId).toBe(original.id);
    expect(reply.reference?.channelId).toBe(seed.channel.id);
    expect(reply.mentions.repliedUser?.id).toBe(seed.alice.id);
    expect((await reply.fetchReference()).content).toBe('CPU at 99%');

    const third = next(client, Events.MessageCreate);
    fake.sendMessage({ channelId: seed.channel.id, webhook: { id: fake.nextId(), name: 'Grafana' }, content: 'alert firing' });
    const [hook] = await third;
    expect(hook.webhookId).toBeTruthy();
    expect(hook.author.username).toBe('Grafana');
    expect(hook.author.bot).toBe(true);
    expect(hook.member).toBeNull();
    expect(hook.content).toBe('alert firing');
  });

  it('fires messageUpdate/messageDelete/messageDeleteBulk for cached and uncached messages', async () => {
    const client = await readyClient();
    const created = next(client, Events.MessageCreate);
    const cached = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'v1' });
    await created;

    let updated = next(client, Events.MessageUpdate);
    fake.editMessage(seed.channel.id, cached.id, 'v2');
    let [before, after] = await updated;
    expect(before.content).toBe('v1');
    expect(after.content).toBe('v2');
    expect(after.editedTimestamp).not.toBeNull();

    // Uncached: stored in history but never dispatched.
    const hidden1 = fake.postWhileDisconnected({ channelId: seed.channel.id, authorId: seed.bob.id, content: 'old' });
    const hidden2 = fake.postWhileDisconnected({ channelId: seed.channel.id, authorId: seed.bob.id, content: 'older' });
    const hidden3 = fake.postWhileDisconnected({ channelId: seed.channel.id, authorId: seed.bob.id, content: 'oldest' });
    updated = next(client, Events.MessageUpdate);
    fake.editMessage(seed.channel.id, hidden1.id, 'edited');
    [before, after] = await updated;
    expect(before.partial).toBe(true);
    expect(after.id).toBe(hidden1.id);
    expect(after.content).toBe('edited');

    const deleted = next(client, Events.MessageDelete);
    fake.deleteMessage(seed.channel.id, cached.id);
    const [gone] = await deleted;
    expect(gone.id).toBe(cached.id);
    expect(gone.partial).toBe(false);
    expect(gone.content).toBe('v2');

    const deletedUncached = next(client, Events.MessageDelete);
    fake.deleteMessage(seed.channel.id, hidden2.id);
    const [goneUncached] = await deletedUncached;
    expect(goneUncached.id).toBe(hidden2.id);
    expect(goneUncached.partial).toBe(true);

    const bulk = next(client, Events.MessageBulkDelete);
    fake.bulkDelete(seed.channel.id, [hidden1.id, hidden3.id]);
    const [messages, channel] = await bulk;
    expect([...messages.keys()].sort()).toEqual([hidden1.id, hidden3.id].sort());
    expect(channel.id).toBe(seed.channel.id);
    expect(fake.history(seed.channel.id)).toHaveLength(0);
  });

  it('serves history newest-first over REST with after/before/limit', async () => {
    const client = await readyClient();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      fake.advanceTime(1_000);
      ids.push(fake.postWhileDisconnected({ channelId: seed.channel.id, authorId: seed.alice.id, content: `m${i}` }).id);
    }
    const channel = await textChannel(client, seed.channel.id);

    const page = await channel.messages.fetch({ after: ids[1]!, limit: 2 });
    expect([...page.keys()]).toEqual([ids[3], ids[2]]);
    expect(page.get(ids[2]!)?.content).toBe('m2');
    expect(page.get(ids[2]!)?.member?.displayName).toBe('Alice A.');
    const req = fake.requestsTo(`/channels/${seed.channel.id}/messages`).at(-1)!;
    expect(req.query).toEqual({ after: ids[1], limit: '2' });

    const latest = await channel.messages.fetch({ limit: 3 });
    expect([...latest.keys()]).toEqual([ids[4], ids[3], ids[2]]);
    const older = await channel.messages.fetch({ before: ids[2]! });
    expect([...older.keys()]).toEqual([ids[1], ids[0]]);

    expect((await channel.messages.fetch({ message: ids[0]!, force: true })).content).toBe('m0');
    await expect(channel.messages.fetch(fake.nextId())).rejects.toMatchObject({ code: 10008, status: 404 });
  });

  it('resumes after dropped connections without replaying missed messages', async () => {
    const client = await readyClient();
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m: Message) => void seen.push(m.id));

    const live = next(client, Events.MessageCreate);
    const first = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'before drop' });
    await live;

    const resumed = fake.waitForResume();
    const shardResume = next(client, Events.ShardResume);
    const startedAt = Date.now();
    expect(fake.dropConnections()).toBe(1);
    const missedLive = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'during the gap' });
    const missedStored = fake.postWhileDisconnected({ channelId: seed.channel.id, authorId: seed.bob.id, content: 'also missed' });
    await resumed;
    await shardResume;
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(fake.resumeCount).toBe(1);
    expect(fake.identifyCount).toBe(1);
    expect(fake.sessionCount).toBe(1);

    const after = next(client, Events.MessageCreate);
    const third = fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'after resume' });
    await after;
    expect(seen).toEqual([first.id, third.id]);

    // A backfill from the last id seen before the drop finds what was missed.
    const channel = await textChannel(client, seed.channel.id);
    const backfill = await channel.messages.fetch({ after: first.id, limit: 100 });
    expect([...backfill.keys()]).toEqual([third.id, missedStored.id, missedLive.id]);
  });

  it('rejects login with a wrong token', async () => {
    const client = newClient();
    await expect(client.login('not-the-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    expect(fake.requests.at(-1)).toMatchObject({ path: '/gateway/bot', status: 401 });
    expect(fake.identifyCount).toBe(0);
  });

  it('closes with 4014 when privileged intents are not enabled', async () => {
    fake.privilegedIntents.messageContent = false;
    const client = newClient();
    await expect(client.login(fake.token)).rejects.toThrow(/disallowed intents/i);
    expect(fake.identifyCount).toBe(0);
  });

  it('strips message content for a client without the MessageContent intent', async () => {
    const client = await readyClient([GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages]);
    let got = next(client, Events.MessageCreate);
    fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: 'secret' });
    let [message] = await got;
    expect(message.content).toBe('');
    // Without GuildMembers, GUILD_CREATE carried only the bot; MESSAGE_CREATE still carries the author's member.
    expect(message.guild?.members.cache.has(seed.bob.id)).toBe(false);
    expect(message.member?.displayName).toBe('Alice A.');

    got = next(client, Events.MessageCreate);
    fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content: `<@${fake.botUser.id}> status?` });
    [message] = await got;
    expect(message.content).toBe(`<@${fake.botUser.id}> status?`);
  });

  it('serves attachment bytes on the fake CDN', async () => {
    const client = await readyClient();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const got = next(client, Events.MessageCreate);
    fake.sendMessage({
      channelId: seed.channel.id,
      authorId: seed.alice.id,
      content: 'graph',
      attachments: [{ filename: 'cpu graph.png', data: png, contentType: 'image/png', width: 10, height: 10 }],
    });
    const [message] = await got;
    const attachment = message.attachments.first()!;
    expect(attachment.name).toBe('cpu graph.png');
    expect(attachment.size).toBe(png.length);
    expect(attachment.contentType).toBe('image/png');
    expect(attachment.url.startsWith(`${fake.cdnBase}/attachments/${seed.channel.id}/`)).toBe(true);
    const res = await fetch(attachment.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(png);

    const direct = fake.addCdnFile('/attachments/1/2/log.txt', 'hello', 'text/plain');
    expect(await (await fetch(direct)).text()).toBe('hello');
    expect((await fetch(`${fake.cdnBase}/attachments/nope`)).status).toBe(404);
  });

  it('acknowledges heartbeats (short interval, on its own)', async () => {
    await fake.stop();
    fake = new FakeDiscord({ heartbeatInterval: 100 });
    await fake.start();
    seed = fake.seedGuild();
    const client = await readyClient();
    await eventually(() => fake.heartbeatCount >= 2, 'two heartbeats', { seen: () => fake.heartbeatCount });
    expect(client.ws.ping).toBeGreaterThanOrEqual(0);
    expect(fake.identifyCount).toBe(1);
  });
});
