import { afterEach, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines, type Engine } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';

/** One BridgeEnv per test on the engine, closed after it. */
function envPerTest(engine: Engine) {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });
  return async (opts: { connect?: boolean } = {}) => (env = await BridgeEnv.create({ ...opts, engine }));
}

const unread = async (e: BridgeEnv, token: string) => {
  const channels = await bodyOf.channels(await e.h.call('GET', '/api/channels', { token }));
  return channels.find((c) => c.id === e.channel.id)!._count.alerts;
};

describeEngines('a chat-connected channel in the read API', (engine) => {
  const create = envPerTest(engine);

  it('keeps read state per user: isRead, unread counts, mark-all-read', async () => {
    const env = await create();
    const { ownerToken, memberToken } = env.ws;
    const sent = [env.send({ content: 'one' }), env.send({ content: 'two' }), env.send({ content: 'three' })];
    await env.waitForMessages(3);
    expect(await unread(env, ownerToken)).toBe(3);
    expect(await unread(env, memberToken)).toBe(3);

    const res = await env.h.call('PATCH', `/api/alerts/${alertIdFromSnowflake(sent[1]!.id)}`, { token: ownerToken, json: { isRead: true } });
    expect(res.status).toBe(200);
    expect(await unread(env, ownerToken)).toBe(2);
    expect(await unread(env, memberToken)).toBe(3);
    expect((await env.list('', ownerToken)).alerts.map((a) => a.isRead)).toEqual([false, true, false]);
    expect((await env.list('', memberToken)).alerts.map((a) => a.isRead)).toEqual([false, false, false]);

    const all = await env.h.call('POST', '/api/alerts/mark-all-read', { token: memberToken, json: { channelId: env.channel.id } });
    expect(all.status).toBeLessThan(300);
    expect(await unread(env, memberToken)).toBe(0);
    expect(await unread(env, ownerToken)).toBe(2);

    env.send({ content: 'four' });
    await env.waitForMessages(4);
    expect(await unread(env, memberToken)).toBe(1);
    expect((await env.list('', memberToken)).alerts.map((a) => a.isRead)).toEqual([false, true, true, true]);
  });

  it('paginates in Discord order with cursor and after', async () => {
    const env = await create();
    const sent = Array.from({ length: 5 }, (_, i) => env.send({ content: `m${i}` }));
    await env.waitForMessages(5);
    const page1 = await env.list('?limit=2');
    expect(page1.alerts.map((a) => a.message)).toEqual(['m4', 'm3']);
    expect(page1.hasMore).toBe(true);
    const page2 = await env.list(`?limit=2&cursor=${page1.nextCursor}`);
    expect(page2.alerts.map((a) => a.message)).toEqual(['m2', 'm1']);
    const newer = await env.list(`?after=${alertIdFromSnowflake(sent[2]!.id)}`);
    expect(newer.alerts.map((a) => a.message)).toEqual(['m4', 'm3']);
  });

  it('refuses the level filter (400) and webhook posts (409)', async () => {
    const env = await create();
    const res = await env.h.call('GET', '/api/channels/community/alerts?level=error', { token: env.ws.ownerToken });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await bodyOf.problem(res))).toMatch(/level/);

    const { res: hook, body } = await env.postWebhook({ title: 'not here' });
    expect(hook.status).toBe(409);
    expect(body.type).toMatch(/channel-is-chat-connected$/);
  });

  it('shows the connection and the names the bot saw in GET /api/channels', async () => {
    const env = await create();
    await eventually(async () => (await env.links().list())[0]?.discordChannelName, 'names');
    const channels = await bodyOf.channels(await env.h.call('GET', '/api/channels', { token: env.ws.ownerToken }));
    expect(channels.find((c) => c.id === env.channel.id)!.chat).toEqual({
      platform: 'discord',
      guildId: env.seed.guild.id,
      guildName: 'Ops',
      channelId: env.seed.channel.id,
      channelName: 'alerts',
    });
    expect(channels.find((c) => c.slug === 'general')!.chat).toBeNull();

    // A rename in Discord follows (CHANNEL_UPDATE).
    env.fake.dispatchRaw('CHANNEL_UPDATE', { ...env.fake.channels.get(env.seed.channel.id)!.payload, name: 'support' });
    await eventually(async () => (await env.links().list())[0]?.discordChannelName === 'support', 'the new name');
  });
});

describeEngines('admin CLI: channel connect-discord / disconnect-discord', (engine) => {
  const create = envPerTest(engine);

  it('connects while the bot runs, reports names once seen, refuses bad input, disconnects', async () => {
    const env = await create({ connect: false });
    const { seed } = env;
    const cli = async (...argv: string[]) => {
      const r = await runAdmin(argv, env.env);
      return { ...r, json: r.stdout ? JSON.parse(r.stdout) : null };
    };

    const bad = await cli('channel', 'connect-discord', '--channel', 'community', '--discord-channel', '#alerts');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/snowflake/);
    const missing = await cli('channel', 'connect-discord', '--channel', 'community');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--discord-channel/);

    const ok = await cli('channel', 'connect-discord', '--channel', 'community', '--discord-channel', seed.channel.id);
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({ channelId: env.channel.id, discordChannelId: seed.channel.id, guildName: null, channelName: null });

    // The same pair again is fine; the Discord channel on another channel is not.
    expect((await cli('channel', 'connect-discord', '--channel', env.channel.id, '--discord-channel', seed.channel.id)).code).toBe(0);
    const twice = await cli('channel', 'connect-discord', '--channel', 'deploys', '--discord-channel', seed.channel.id);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already feeds/);

    // The running bot picks the link up without a restart and fills the names.
    env.send({ content: 'hello bridge' });
    await env.waitForMessages(1);
    await eventually(async () => (await cli('channel', 'discord-status', '--channel', 'community')).json.channelName === 'alerts', 'names in status');
    const status = await cli('channel', 'discord-status', '--channel', 'community');
    expect(status.json).toMatchObject({ connected: true, guildName: 'Ops', channelName: 'alerts', messages: 1 });

    const off = await cli('channel', 'disconnect-discord', '--channel', 'community');
    expect(off.json).toEqual({ channelId: env.channel.id, discordChannelId: seed.channel.id, disconnected: true, messagesKept: 1 });
    await eventually(() => !env.bridge!.sync.linkOf(seed.channel.id), 'the bot to drop the link');
    env.send({ content: 'not mirrored any more' });
    await env.bridge!.sync.idle();
    expect((await env.list()).alerts.map((a) => a.message)).toEqual(['hello bridge']);
    expect((await cli('channel', 'disconnect-discord', '--channel', 'community')).code).toBe(1);
    // Webhooks work again on a disconnected channel.
    const { res } = await env.postWebhook({ title: 'back to webhooks' });
    expect(res.status).toBe(201);
  });
});
