import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordBridge, type DiscordBridgeHandle } from '../../src/discord/index.js';
import { seedWorkspace } from '../helpers/harness.js';
import { FakeDiscord } from '../helpers/fake-discord/index.js';
import { eventually } from '../helpers/poll.js';
import { FAST } from '../discord/bridge-env.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

let h: DashHarness | undefined;
let fake: FakeDiscord | undefined;
let bridge: DiscordBridgeHandle | undefined;
afterEach(async () => {
  await bridge?.stop();
  await h?.close();
  await fake?.stop();
  h = fake = bridge = undefined;
});

/** The dashboard with the real bridge logged in to a fake Discord where the bot is in two servers. */
async function setup() {
  fake = new FakeDiscord({ now: Date.UTC(2026, 10, 23, 9) });
  await fake.start();
  const ops = fake.seedGuild('Ops');
  const lab = fake.addGuild({ name: 'Lab <b>&amp; friends</b>', ownerId: ops.alice.id });
  const feedback = fake.addTextChannel(lab.id, { name: 'feedback' });
  const requests = fake.community.addForumChannel(lab.id, { name: 'feature-requests', tags: ['ui'] });
  h = await startDashboard({ serve: false, env: { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl } });
  const seed = await seedWorkspace(h.services);
  // #general of Ops already feeds the other workspace: it is not offered to anyone else.
  await h.services.discordLinks.connect(seed.otherChannel.id, ops.general.id);
  bridge = await startDiscordBridge(h.services, FAST);
  await bridge.ready;
  h.services.discordDirectory.attach(bridge);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  return { seed, owner, ops, lab, feedback, requests };
}

/** The connect form's options as "server › label = id", in page order. */
function options(html: string): string[] {
  const select = /<select id="f-discord_channel"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
  const out: string[] = [];
  for (const group of select.matchAll(/<optgroup label="([^"]*)">([\s\S]*?)<\/optgroup>/g)) {
    for (const o of group[2]!.matchAll(/<option value="(\d+)"[^>]*>([^<]*)<\/option>/g)) out.push(`${group[1]} › ${o[2]} = ${o[1]}`);
  }
  return out;
}

describe('Dashboard: connect a channel to Discord by server and channel name', () => {
  it('lists the bot’s servers and free channels by name, connects the chosen one, and names it', async () => {
    const { seed, owner, ops, feedback, requests } = await setup();
    const page = await owner.get(`/channels/${seed.deploys.id}`);
    // Servers by name (escaped), channels in Discord's order; #general is taken by another workspace's channel.
    expect(options(page.html)).toEqual([
      `Lab &lt;b&gt;&amp;amp; friends&lt;/b&gt; › #feedback · Lab &lt;b&gt;&amp;amp; friends&lt;/b&gt; = ${feedback.id}`,
      `Lab &lt;b&gt;&amp;amp; friends&lt;/b&gt; › #feature-requests (forum) · Lab &lt;b&gt;&amp;amp; friends&lt;/b&gt; = ${requests.id}`,
      `Ops › #alerts · Ops = ${ops.channel.id}`,
    ]);
    expect(page.html).toContain('<label for="f-discord_channel">Discord channel</label>');
    expect(page.html).toContain('Not in the list? Use the channel id');

    const none = await owner.post(`/channels/${seed.deploys.id}/discord`, { discord_channel: '', discord_channel_id: '' });
    expect(none.res.status).toBe(400);
    expect(none.html).toContain('Choose a Discord channel, or paste its id');

    const done = await owner.post(`/channels/${seed.deploys.id}/discord`, { discord_channel: requests.id, discord_channel_id: '' });
    expect(done.res.status).toBe(303);
    const after = await owner.get(done.res.headers.get('location')!);
    expect(after.html).toContain('now mirrors Discord channel #feature-requests on Lab &lt;b&gt;&amp;amp; friends&lt;/b&gt;.');
    await eventually(async () => (await owner.get(`/channels/${seed.deploys.id}`)).html.includes('<strong>#feature-requests</strong> on Lab'), 'the link named');

    // The connected channel is no longer offered to another channel.
    expect(options((await owner.get(`/channels/${seed.general.id}`)).html).map((o) => o.split(' = ')[1])).toEqual([feedback.id, ops.channel.id]);
  });

  it('a typed id wins over the list; a bad one is the field’s error with the text kept', async () => {
    const { seed, owner, ops } = await setup();
    const bad = await owner.post(`/channels/${seed.general.id}/discord`, { discord_channel: ops.channel.id, discord_channel_id: 'not-an-id' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('must be a Discord channel id');
    // The fallback is open with the typed text in it.
    expect(bad.html).toMatch(/<details class="discord-id-fallback" open="">/);
    expect(bad.html).toContain('value="not-an-id"');
    const unknown = '123456789012345678';
    expect((await owner.post(`/channels/${seed.general.id}/discord`, { discord_channel: ops.channel.id, discord_channel_id: unknown })).res.status).toBe(303);
    expect(await h!.query('SELECT discord_channel_id AS d FROM discord_links WHERE channel_id = ?', [seed.general.id])).toEqual([{ d: unknown }]);
  });

  it('on a node without the gateway the form asks for the id and says where names are listed', async () => {
    const { seed, owner } = await setup();
    h!.services.discordDirectory.attach(null);
    const page = await owner.get(`/channels/${seed.deploys.id}`);
    expect(options(page.html)).toEqual([]);
    expect(page.html).toContain('<label for="f-discord_channel">Discord channel id</label>');
    expect(page.html).toContain('on the node that runs the bridge');
    const member = new DashClient(h!);
    await member.signInWithLink(seed.member.id);
    h!.services.discordDirectory.attach(bridge!);
    expect((await member.get(`/channels/${seed.deploys.id}`)).html).not.toContain('f-discord_channel');
  });
});
