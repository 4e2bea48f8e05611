import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

/**
 * Routes in channel settings over real HTTP (issue 27): owners and admins add, change, test, pause,
 * resume and delete them; every form is Post/Redirect/Get with its errors beside the field; a
 * `webhook` route's secret shows once; members reach none of it. And the alert's delivery log page.
 */
let h: DashHarness | undefined;
let worker: RouteWorker | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const close of closers.splice(0)) await close();
  await h?.close();
  h = undefined;
});

async function setup() {
  h = await startDashboard({ env: { ROUTES_ALLOW_PRIVATE: '1' } });
  const seed = await seedWorkspace(h.services);
  const r = await startFakeReceiver((req) => (req.path.startsWith('/down') ? { status: 503, body: 'upstream down' } : { status: 200, body: '{"ok":true}' }));
  closers.push(r.close);
  const client = async (userId: string) => {
    const c = new DashClient(h!, 'http');
    await c.signInWithLink(userId);
    return c;
  };
  return { seed, r, owner: await client(seed.owner.id), client };
}

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&#39;|&#x27;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, ' ');
const routeRows = () => h!.query<{ id: string; kind: string; state: string; paused_reason: string | null; min_level: string }>('SELECT id, kind, state, paused_reason, min_level FROM routes');

describe('routes in channel settings', () => {
  it('adds a signed webhook route: the secret shows once, a test shows the answer, pause, resume and delete', async () => {
    const { seed, r, owner } = await setup();
    const at = `/channels/${seed.general.id}`;
    const settings = await owner.get(at);
    expect(text(settings.html)).toContain('No routes yet.');
    const form = await owner.get(`${at}/routes/new?kind=webhook`);
    expect(form.res.status).toBe(200);
    expect(text(form.html)).toContain('Signing secret (optional)');

    const added = await owner.submit(`${at}/routes`, { kind: 'webhook', url: `${r.url}/hook`, minLevel: 'WARNING', event_opened: 'on', event_resolved: 'on', ratePerMinute: '30' });
    expect(added.posted.status).toBe(303);
    const [row] = await routeRows();
    expect(row).toMatchObject({ kind: 'webhook', state: 'active', min_level: 'WARNING' });
    expect(added.location).toMatch(new RegExp(`^${at}/routes/${row!.id}\\?flash=`));
    const secret = /id="route-secret"[^>]*value="(whsec_[^"]+)"/.exec(added.html)?.[1];
    expect(secret, 'the secret is shown once').toBeTruthy();
    const reloaded = await owner.get(added.location!);
    expect(reloaded.html).not.toContain(secret!);
    // The target is shown masked: the host, never the path.
    expect(reloaded.html).toContain(`${r.url.replace('http://', '')}/…`);
    expect(reloaded.html).not.toContain(`${r.url}/hook`);

    // The test sends a signed sample and shows the receiver's answer after the redirect.
    const tested = await owner.submit(`${at}/routes/${row!.id}/test`);
    expect(tested.posted.status).toBe(303);
    expect(text(tested.html)).toContain('Delivered : HTTP 200');
    expect(tested.html).toContain('{&quot;ok&quot;:true}');
    const got = r.received.at(-1)!;
    expect(() => new Webhook(secret!).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    expect(text((await owner.get(tested.location!)).html)).not.toContain('Delivered');

    await owner.submit(`${at}/routes/${row!.id}/pause`);
    expect((await routeRows())[0]).toMatchObject({ state: 'paused', paused_reason: 'paused by hand' });
    const paused = await owner.get(at);
    expect(text(paused.html)).toContain('Paused: paused by hand');
    const resumed = await owner.submit(`${at}/routes/${row!.id}/resume`, { from: 'settings' });
    expect(resumed.location).toMatch(new RegExp(`^${at}\\?flash=`));
    expect((await routeRows())[0]).toMatchObject({ state: 'active', paused_reason: null });

    const deleted = await owner.submit(`${at}/routes/${row!.id}/delete`);
    expect(text(deleted.html)).toContain('deleted, with its deliveries');
    expect(await routeRows()).toEqual([]);
  });

  it('shows a refused form again with the error beside its field and stores nothing', async () => {
    const { seed, r, owner } = await setup();
    const at = `/channels/${seed.general.id}`;
    await owner.get(`${at}/routes/new?kind=slack`);
    const bad = await owner.post(`${at}/routes`, { kind: 'slack', url: 'not a url', event_opened: 'on' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toMatch(/id="f-url-error"[^>]*>Is not a URL</);
    const noEvents = await owner.post(`${at}/routes`, { kind: 'telegram', botToken: '1:abc', chatId: '-100', apiUrl: r.url });
    expect(noEvents.res.status).toBe(400);
    expect(noEvents.html).toMatch(/id="f-events-error"[^>]*>Must name at least one event</);
    // The bot token typed is not rendered back.
    expect(noEvents.html).not.toContain('1:abc');
    const badField = await owner.post(`${at}/routes`, { kind: 'ntfy', url: `${r.url}/alerts`, event_opened: 'on', fields: 'no equals sign' });
    expect(badField.html).toMatch(/id="f-fields-error"[^>]*>Write each as label=value/);
    const badLevel = await owner.post(`${at}/routes`, { kind: 'ntfy', url: `${r.url}/alerts`, event_opened: 'on', minLevel: 'LOUD' });
    expect(badLevel.html).toMatch(/id="f-minLevel-error"[^>]*>Choose a level</);
    expect(await routeRows()).toEqual([]);

    // Changing filters: same rule, beside the field; the route keeps its filters.
    const { id } = await h!.services.routes.routes.create(seed.general.id, 'discord', { url: `${r.url}/discord` }, {});
    await owner.get(`${at}/routes/${id}`);
    const rate = await owner.post(`${at}/routes/${id}/filters`, { minLevel: 'INFO', event_opened: 'on', ratePerMinute: '9999' });
    expect(rate.res.status).toBe(400);
    expect(rate.html).toMatch(/id="f-ratePerMinute-error"[^>]*>Must be a whole number from 1 to 600</);
    const saved = await owner.submit(`${at}/routes/${id}/filters`, { minLevel: 'ERROR', event_opened: 'on', event_acknowledged: 'on', source: 'ci', fields: 'env=prod' });
    expect(text(saved.html)).toContain('Filters of Discord');
    expect(await h!.services.routes.routes.get(id)).toMatchObject({ minLevel: 'ERROR', events: ['alert.opened', 'alert.acknowledged'], source: 'ci', fields: [{ label: 'env', value: 'prod' }] });
    const target = await owner.submit(`${at}/routes/${id}/target`, { url: `${r.url}/discord/new-hook-9876` });
    expect(text(target.html)).toContain('Target replaced');
    expect((await h!.services.routes.routes.get(id)).target).toMatch(/9876$/);
  });

  it('shows a failing test as the receiver answered it', async () => {
    const { seed, r, owner } = await setup();
    const { id } = await h!.services.routes.routes.create(seed.general.id, 'slack', { url: `${r.url}/down` }, {});
    await owner.get(`/channels/${seed.general.id}/routes/${id}`);
    const tested = await owner.submit(`/channels/${seed.general.id}/routes/${id}/test`);
    expect(text(tested.html)).toContain('Not delivered : HTTP 503');
    expect(tested.html).toContain('upstream down');
  });

  it('shows a route paused after an hour of failures with its reason and a Resume button', async () => {
    const { seed, r, owner } = await setup();
    const { id } = await h!.services.routes.routes.create(seed.general.id, 'slack', { url: `${r.url}/down` }, {});
    await h!.services.routes.outbox.pauseRoute(id, 'paused after failing for an hour: HTTP 503', Date.now());
    const settings = await owner.get(`/channels/${seed.general.id}`);
    expect(text(settings.html)).toContain('Paused: paused after failing for an hour: HTTP 503');
    expect(settings.html).toMatch(/aria-label="Resume Slack → [^"]+">Resume</);
    const page = await owner.get(`/channels/${seed.general.id}/routes/${id}`);
    expect(text(page.html)).toContain('Paused: paused after failing for an hour: HTTP 503');
  });

  it('is for owners and admins: a member is refused, and another channel’s route is not found', async () => {
    const { seed, r, owner, client } = await setup();
    const { id } = await h!.services.routes.routes.create(seed.general.id, 'slack', { url: `${r.url}/s` }, {});
    const member = await client(seed.member.id);
    const settings = await member.get(`/channels/${seed.general.id}`);
    expect(settings.html).not.toContain('routes-title');
    expect((await member.get(`/channels/${seed.general.id}/routes/${id}`)).res.status).toBe(403);
    expect((await member.get(`/channels/${seed.general.id}/routes/new`)).res.status).toBe(403);
    expect((await member.post(`/channels/${seed.general.id}/routes/${id}/delete`)).res.status).toBe(403);
    expect((await owner.get(`/channels/${seed.deploys.id}/routes/${id}`)).res.status).toBe(404);
    expect((await owner.post(`/channels/${seed.deploys.id}/routes/${id}/delete`)).res.status).toBe(404);
    expect(await routeRows()).toHaveLength(1);
  });
});

describe('the delivery log of an alert', () => {
  it('lists route deliveries to every reader and e-mail rows to their recipient and managers', async () => {
    const { seed, r, owner, client } = await setup();
    await h!.services.routes.routes.create(seed.general.id, 'slack', { url: `${r.url}/services/T1/B2/secret-XYZW` }, {});
    worker = startRouteWorker(h!.services);
    const res = await fetch(`${h!.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Disk full', level: 'ERROR' }) });
    const alertId = ((await res.json()) as { alertId: string }).alertId;
    await eventually(() => r.received[0], 'the Slack delivery');
    for (const [userId, state] of [[seed.owner.id, 'sent'], [seed.member.id, 'failed']] as const) {
      await h!.query(
        `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, last_error, created_at, updated_at) VALUES (1, ?, ?, ?, ?, 1, 0, ?, 1000, 2000)`,
        [userId, seed.general.id, alertId, state, state === 'failed' ? '550 mailbox unavailable' : null],
      );
    }
    // The card links to it.
    expect((await owner.get('/feed')).html).toContain(`href="/alerts/${alertId}/deliveries"`);
    const asOwner = await eventually(async () => {
      const page = text((await owner.get(`/alerts/${alertId}/deliveries`)).html);
      return page.includes('delivered') ? page : undefined;
    }, 'the route delivery shown delivered');
    expect(asOwner).toContain('Deliveries of “Disk full”');
    expect(asOwner).toMatch(/Slack .*127\.0\.0\.1:\d+\/…XYZW delivered 1 HTTP 200/);
    expect(asOwner).not.toContain('secret-XYZW');
    expect(asOwner).toContain('o***@acme.test');
    expect(asOwner).toContain('m***@acme.test');
    // An owner reaches the route's page from its row; a member sees the target only.
    const routeId = (await h!.services.routes.routes.list(seed.general.id))[0]!.id;
    expect((await owner.get(`/alerts/${alertId}/deliveries`)).html).toContain(`href="/channels/${seed.general.id}/routes/${routeId}"`);

    const member = await client(seed.member.id);
    const asMember = text((await member.get(`/alerts/${alertId}/deliveries`)).html);
    expect(asMember).toContain('delivered');
    expect(asMember).toContain('m***@acme.test failed 1 550 mailbox unavailable');
    expect(asMember).not.toContain('o***@acme.test');
    expect((await member.get(`/alerts/${alertId}/deliveries`)).html).not.toContain(`/routes/${routeId}`);

    // An alert the viewer cannot see: not found, as the API answers.
    const hidden = await fetch(`${h!.config.publicUrl}/api/webhook/${seed.secret.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'private' }) });
    const hiddenId = ((await hidden.json()) as { alertId: string }).alertId;
    expect((await member.get(`/alerts/${hiddenId}/deliveries`)).res.status).toBe(404);
    expect((await member.get('/alerts/alr_nope/deliveries')).res.status).toBe(404);
  });
});
