import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * The server side of the feed's first-alert panel and density (issue 25), on either engine: the
 * webhook URL only on request and only for a channel the reader can see, the test alert through
 * the webhook's own use case (stored, counted, refused alike), Post/Redirect/Get, and the density
 * stored per user with a refused value storing nothing.
 */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setUp() {
  h = await startDashboard({ serve: false });
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  const member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
  return { h, seed, owner, member };
}

const alertsIn = async (h: DashHarness, channelId: string) => Number((await h.query<{ n: number }>('SELECT COUNT(*) AS n FROM alerts WHERE channel_id = ?', [channelId]))[0]!.n);
const usage = async (h: DashHarness, workspaceId: string) =>
  Number((await h.query<{ n: number }>('SELECT COALESCE(SUM(events), 0) AS n FROM usage_counters WHERE workspace_id = ?', [workspaceId]))[0]!.n);

describe('the first-alert panel', () => {
  it('shows the steps on an empty feed, the webhook URL and the drop-in URLs only when revealed, and nothing of a private channel', async () => {
    const { h, seed, owner, member } = await setUp();
    const page = await owner.get('/feed');
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Send your first alert');
    expect(page.html).not.toContain('No alerts yet.');
    expect(page.html).not.toContain(seed.general.webhookToken);
    expect(page.html).toContain('href="/feed?reveal=1"');

    const url = `${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`;
    const revealed = await member.get('/feed?reveal=1');
    expect(revealed.html).toContain(url);
    for (const suffix of ['/slack', '/alertmanager', '/grafana', '/github']) expect(revealed.html).toContain(`${url}${suffix}`);
    // The member is not in the private channel: its page is not found, its URL never shown.
    expect((await member.get(`/feed/c/security?reveal=1`)).res.status).toBe(404);
    expect(revealed.html).not.toContain(seed.secret.webhookToken);
    // The owner's private channel, empty, teaches its own URL.
    expect((await owner.get('/feed/c/security?reveal=1')).html).toContain(seed.secret.webhookToken);
  });

  it('sends a test alert through the webhook use case: stored, counted, Post/Redirect/Get, 204 for htmx; refused where the webhook refuses', async () => {
    const { h, seed, owner, member } = await setUp();
    const before = await usage(h, seed.ws.id);

    const sent = await member.post('/feed/test-alert', { channel: seed.general.id, back: '/feed/c/general' });
    expect(sent.res.status).toBe(303);
    expect(sent.res.headers.get('location')).toBe('/feed/c/general');
    expect(await alertsIn(h, seed.general.id)).toBe(1);
    expect(await usage(h, seed.ws.id)).toBe(before + 1);
    const [row] = await h.query<{ title: string; source: string }>('SELECT title, source FROM alerts WHERE channel_id = ?', [seed.general.id]);
    expect(row).toEqual({ title: 'Test alert: your webhook works', source: 'Alertbridge test' });
    // The page it redirects to shows the alert, and loading it again sends nothing.
    const after = await member.get('/feed/c/general');
    expect(after.html).toContain('Max Member sent this from the dashboard');
    expect(after.html).not.toContain('Send your first alert');
    await member.get('/feed/c/general');
    expect(await alertsIn(h, seed.general.id)).toBe(1);

    const viaHtmx = await owner.post('/feed/test-alert', { channel: seed.deploys.id }, { headers: { 'hx-request': 'true' } });
    expect(viaHtmx.res.status).toBe(204);
    expect(await alertsIn(h, seed.deploys.id)).toBe(1);

    // A channel the reader cannot see, one of another workspace, no channel, no CSRF token: nothing stored.
    expect((await member.post('/feed/test-alert', { channel: seed.secret.id })).res.status).toBe(404);
    expect((await member.post('/feed/test-alert', { channel: seed.otherChannel.id })).res.status).toBe(404);
    expect((await member.post('/feed/test-alert', {})).res.status).toBe(404);
    expect((await member.post('/feed/test-alert', { channel: seed.general.id }, { csrf: null })).res.status).toBe(403);
    // A chat-connected channel takes no webhook alerts, so no test alert either.
    await h.services.discordLinks.connect(seed.deploys.id, '1400000000000000001');
    expect((await owner.post('/feed/test-alert', { channel: seed.deploys.id })).res.status).toBe(409);
    expect(await alertsIn(h, seed.secret.id)).toBe(0);
    expect(await alertsIn(h, seed.general.id)).toBe(1);
    expect(await alertsIn(h, seed.deploys.id)).toBe(1);
    expect(await usage(h, seed.ws.id)).toBe(before + 2);
  });
});

describe('the feed density', () => {
  it('is stored per user (303 back to the feed, 204 for htmx); a value it does not know is a 400 that stores nothing', async () => {
    const { h, seed, owner, member } = await setUp();
    expect((await member.get('/feed')).html).toContain('data-density="cards"');

    const saved = await member.post('/feed/density', { density: 'compact', back: '/feed/unread' });
    expect(saved.res.status).toBe(303);
    expect(saved.res.headers.get('location')).toBe('/feed/unread');
    expect((await member.get('/feed')).html).toContain('data-density="compact"');
    // Another person's choice is their own.
    expect((await owner.get('/feed')).html).toContain('data-density="cards"');

    const refused = await member.post('/feed/density', { density: 'huge' });
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('density must be one of cards, compact');
    const stored = async () => (await h.query<{ feed_density: string }>('SELECT feed_density FROM user_settings WHERE user_id = ?', [seed.member.id]))[0]?.feed_density;
    expect(await stored()).toBe('compact');

    expect((await member.post('/feed/density', { density: 'cards' }, { headers: { 'hx-request': 'true' } })).res.status).toBe(204);
    expect(await stored()).toBe('cards');
    expect((await member.post('/feed/density', { density: 'compact' }, { csrf: null })).res.status).toBe(403);
    expect(await stored()).toBe('cards');
  });
});
