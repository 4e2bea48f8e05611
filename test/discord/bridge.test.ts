import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';
import { newLifecycle } from '../helpers/alert-views.js';

describeEngines('Discord bridge: messages through the read API', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });
  const create = async (opts: Omit<Parameters<typeof BridgeEnv.create>[0] & object, 'engine'> = {}) => (env = await BridgeEnv.create({ ...opts, engine }));

  it('stores each author role: owner, member, bot and webhook', async () => {
    const env = await create();
    const { fake, seed } = env;
    const robot = fake.addUser({ username: 'deploy-bot', global_name: 'Deploy Bot', bot: true });
    fake.addMember(seed.guild.id, robot.id);
    const hookId = fake.nextId();

    const fromOwner = env.send({ authorId: seed.owner.id, content: 'we are looking into it' });
    const fromAlice = env.send({ authorId: seed.alice.id, content: 'the app crashes on login' });
    const fromBob = env.send({ authorId: seed.bob.id, content: 'same here' });
    env.send({ authorId: robot.id, content: 'deploy 1.2.3 done' });
    env.send({ webhook: { id: hookId, name: 'Grafana' }, content: 'CPU > 90%' });

    const alerts = await env.waitForMessages(5);
    expect(alerts.map((a) => a.author)).toEqual([
      { id: seed.owner.id, name: 'The Owner', bot: false, role: 'owner' },
      { id: seed.alice.id, name: 'Alice A.', bot: false, role: 'member' },
      { id: seed.bob.id, name: 'bob', bot: false, role: 'member' },
      { id: robot.id, name: 'Deploy Bot', bot: true, role: 'bot' },
      { id: hookId, name: 'Grafana', bot: true, role: 'bot' },
    ]);
    // The chat shape, nothing of the standard one.
    expect(alerts[1]).toEqual({
      id: alertIdFromSnowflake(fromAlice.id),
      channelId: env.channel.id,
      message: 'the app crashes on login',
      createdAt: fromAlice.timestamp,
      editedAt: null,
      author: { id: seed.alice.id, name: 'Alice A.', bot: false, role: 'member' },
      replyTo: null,
      attachments: [],
      isRead: false,
      ...newLifecycle,
      thread: null,
      tags: [],
      reactions: [],
    });
    expect(alerts[0]!.id).toBe(alertIdFromSnowflake(fromOwner.id));
    expect(alerts[2]!.createdAt).toBe(new Date(Date.parse(fromBob.timestamp)).toISOString());
    // No e-mail for chat messages; one stream event per message.
    expect(await env.query('SELECT count(*) AS n FROM notification_jobs')).toEqual([{ n: 0 }]);
    expect(await env.query("SELECT count(*) AS n FROM alert_events WHERE type = 'alert.created' AND channel_id = ?", [env.channel.id])).toEqual([{ n: 5 }]);
  });

  it('stores a reply with the parent id, author and a word-boundary excerpt', async () => {
    const env = await create();
    const { seed } = env;
    const long = `Since the update <@${seed.bob.id}> and I see the dashboard freeze whenever we open the billing page with more than ten invoices listed`;
    const parent = env.send({ authorId: seed.alice.id, content: long });
    const reply = env.send({ authorId: seed.owner.id, content: 'thanks, fix is on the way', replyTo: parent.id });
    const short = env.send({ authorId: seed.bob.id, content: 'short one' });
    env.send({ authorId: seed.alice.id, content: '+1', replyTo: short.id });

    const alerts = await env.waitForMessages(4);
    const r = alerts.find((a) => a.id === alertIdFromSnowflake(reply.id));
    expect(r!.replyTo!.messageId).toBe(alertIdFromSnowflake(parent.id));
    expect(r!.replyTo!.author).toBe('Alice A.');
    expect(r!.replyTo!.excerpt).toBe('Since the update @bob and I see the dashboard freeze whenever we open the billing page with more…');
    expect(r!.replyTo!.excerpt.length).toBeLessThanOrEqual(100);
    expect(alerts[3]!.replyTo).toEqual({ messageId: alertIdFromSnowflake(short.id), author: 'bob', excerpt: 'short one' });

    // The parent is addressable with the id the reply carries.
    const res = await env.h.call('GET', `/api/alerts/${r!.replyTo!.messageId}`, { token: env.ws.ownerToken });
    expect(res.status).toBe(200);
    expect((await bodyOf.anyAlert(res)).message).toContain('Since the update @bob');
  });

  it('resolves every mention kind and keeps @everyone/@here', async () => {
    const env = await create();
    const { seed, fake } = env;
    const ghost = fake.nextId();
    env.send({
      content:
        `<@${seed.bob.id}> <@!${seed.alice.id}> <@${seed.owner.id}> ping <@&${seed.oncall.id}> in <#${seed.general.id}> ` +
        `<:party:${fake.nextId()}> <a:dance:${fake.nextId()}> @everyone @here ` +
        `<@${ghost}> <@&${ghost}> <#${ghost}>`,
    });
    const [a] = await env.waitForMessages(1);
    expect(a!.message).toBe(
      '@bob @Alice A. @The Owner ping @oncall in #general :party: :dance: @everyone @here @unknown-user @deleted-role #deleted-channel',
    );
  });

  it("resolves mentions only within the message's server: another server's channel and role read as deleted", async () => {
    const env = await create();
    const { seed, fake } = env;
    // A second server the bot is in, with a private-sounding channel and a role of its own.
    const carol = fake.addUser({ username: 'carol', global_name: 'Carol' });
    const other = fake.addGuild({ name: 'Other Co', ownerId: carol.id });
    const hidden = fake.addTextChannel(other.id, { name: 'acquisition-plans' });
    const board = fake.addRole(other.id, { name: 'board', mentionable: true });
    // The bot has seen that server (its channel is in the client's global cache).
    await eventually(() => env.bridge!.client.channels.cache.has(hidden.id), 'the other server in the cache');

    env.send({ content: `see <#${hidden.id}> ask <@&${board.id}> and <@${carol.id}>, not <#${seed.general.id}>` });
    const [a] = await env.waitForMessages(1);
    // carol is not a member here, but the message mentions her (Discord sends her user along): her global name.
    expect(a!.message).toBe('see #deleted-channel ask @deleted-role and @Carol, not #general');
    expect(a!.message).not.toContain('acquisition');
  });

  it('re-hosts attachments from the CDN; a file-only message has a null message', async () => {
    const env = await create();
    const image = png(7);
    const msg = env.send({ content: '', attachments: [{ filename: 'screenshot.png', data: image, contentType: 'image/png' }] });
    env.send({
      content: 'logs attached',
      attachments: [
        { filename: 'crash.log', data: 'not media', contentType: 'text/plain' },
        { filename: 'fake.png', data: '<svg xmlns="http://www.w3.org/2000/svg"/>', contentType: 'image/png' },
      ],
    });
    const alerts = await env.waitForMessages(2);
    expect(alerts[0]!.id).toBe(alertIdFromSnowflake(msg.id));
    expect(alerts[0]!.message).toBeNull();
    expect(alerts[0]!.attachments).toHaveLength(1);
    const { url, mime } = alerts[0]!.attachments[0]!;
    expect(mime).toBe('image/png');
    expect(url.startsWith('http://alertbridge.test/media/')).toBe(true);
    expect(url).not.toContain(env.fake.cdnBase);
    const served = await env.h.call('GET', new URL(url).pathname);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(image);
    // Unsupported files are skipped, the message itself is kept; the text file was never downloaded.
    expect(alerts[1]).toMatchObject({ message: 'logs attached', attachments: [] });
    expect(env.fake.cdnRequests.some((p) => p.endsWith('/crash.log'))).toBe(false);
  });

  it('applies edits in place and removes deleted and bulk-deleted messages', async () => {
    const env = await create();
    const { fake, seed } = env;
    const a = env.send({ content: 'first draft' });
    const b = env.send({ content: 'to delete' });
    const c = env.send({ content: 'bulk 1' });
    const d = env.send({ content: 'bulk 2' });
    const e = env.send({ content: 'stays' });
    await env.waitForMessages(5);

    // Read state survives an edit (an edit does not resurface a message).
    await env.h.call('PATCH', `/api/alerts/${alertIdFromSnowflake(a.id)}`, { token: env.ws.ownerToken, json: { isRead: true } });
    fake.advanceTime(60_000);
    fake.editMessage(seed.channel.id, a.id, `final text for <@${seed.bob.id}>`);
    let alerts = await env.waitForMessages(5, (l) => l[0]!.message !== 'first draft');
    expect(alerts[0]).toMatchObject({
      id: alertIdFromSnowflake(a.id),
      message: 'final text for @bob',
      editedAt: new Date(fake.now()).toISOString(),
      isRead: true,
    });

    fake.deleteMessage(seed.channel.id, b.id);
    fake.bulkDelete(seed.channel.id, [c.id, d.id]);
    alerts = await env.waitForMessages(2);
    expect(alerts.map((x) => x.id)).toEqual([alertIdFromSnowflake(a.id), alertIdFromSnowflake(e.id)]);
    const gone = await env.h.call('GET', `/api/alerts/${alertIdFromSnowflake(b.id)}`, { token: env.ws.ownerToken });
    expect(gone.status).toBe(404);
    const types = await env.query('SELECT type, count(*) AS n FROM alert_events WHERE channel_id = ? GROUP BY type ORDER BY type', [env.channel.id]);
    expect(types).toEqual([
      { type: 'alert.created', n: 5 },
      { type: 'alert.deleted', n: 3 },
      { type: 'alert.updated', n: 1 },
    ]);
  });

  it("ignores the bot's own messages and other channels", async () => {
    const env = await create();
    const { fake, seed } = env;
    env.send({ authorId: fake.botUser.id, content: 'I am the bridge' });
    env.send({ channelId: seed.general.id, content: 'elsewhere' });
    const last = env.send({ content: 'counted' });
    const alerts = await env.waitForMessages(1);
    expect(alerts[0]!.id).toBe(alertIdFromSnowflake(last.id));
    await env.bridge!.sync.idle();
    expect((await env.list()).alerts).toHaveLength(1);
  });
});
