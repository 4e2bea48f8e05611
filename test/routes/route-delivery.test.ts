import { Webhook } from 'standardwebhooks';
import { RouteWebhookEvent } from '../../src/http/routes/route-webhook-event.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { createRouteTransport } from '../../src/notify/routes/transport.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

let h: Harness | undefined;
let worker: RouteWorker | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const close of closers.splice(0)) await close();
  await h?.close();
  h = undefined;
});

async function setup(clock?: ManualClock) {
  h = await startHarness({ serve: true, env: { ROUTES_ALLOW_PRIVATE: '1' }, overrides: clock ? { clock } : {} });
  const seed = await seedWorkspace(h.services);
  const token = (await h.services.accounts.rotateWebhook(seed.general.id)).webhookToken;
  return { seed, token, routes: h.services.routes.routes };
}

async function receiver(answer?: Parameters<typeof startFakeReceiver>[0]) {
  const r = await startFakeReceiver(answer);
  closers.push(r.close);
  return r;
}

const deliveries = () => h!.query<{ id: number; event: string; state: string; attempts: number; next_attempt_at: number; last_status: number | null; last_error: string | null }>(
  'SELECT id, event, state, attempts, next_attempt_at, last_status, last_error FROM route_deliveries ORDER BY id',
);

describe('outbound routes deliver alerts', () => {
  it('signs webhook deliveries per Standard Webhooks; the body is the alert plus event and channel', async () => {
    const { seed, token, routes } = await setup();
    const r = await receiver();
    const { secret } = await routes.create(seed.general.id, 'webhook', { url: `${r.url}/hook?x=1` }, { events: ['alert.opened', 'alert.updated'] });
    worker = startRouteWorker(h!.services);
    const { res, body } = await postAlert(h!, token, { title: 'Disk full', level: 'ERROR', message: 'db-1 at 98%', fields: [{ label: 'host', value: 'db-1' }] });
    expect(res.status).toBe(201);
    const got = await eventually(() => r.received[0], 'the webhook delivery');
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook?x=1');
    const headers = { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) };
    const verified = new Webhook(secret!).verify(got.body, headers) as Record<string, unknown>;
    expect(verified).toMatchObject({
      id: body.alertId, title: 'Disk full', level: 'ERROR', message: 'db-1 at 98%', fields: [{ label: 'host', value: 'db-1', inline: false }],
      event: 'alert.opened', channel: { id: seed.general.id, slug: 'general', name: 'General' },
    });
    expect(verified).not.toHaveProperty('isRead');
    // Exactly the shape the OpenAPI document's webhooks section promises (strict: no undocumented member).
    expect(RouteWebhookEvent.strict().safeParse(verified).error).toBeUndefined();
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, headers)).toThrow();
    await eventually(async () => (await deliveries())[0]?.state === 'sent', 'the delivery recorded sent');
    expect((await deliveries())[0]).toMatchObject({ state: 'sent', attempts: 1, last_status: 200 });
    expect(headers['webhook-id']).toMatch(/^msg_rd\d+$/);
  });

  it('applies the filters: level, events, source and fields', async () => {
    const { seed, token, routes } = await setup();
    const r = await receiver();
    await routes.create(seed.general.id, 'webhook', { url: r.url }, { minLevel: 'WARNING', source: 'ci', fields: [{ label: 'env', value: 'prod' }] });
    worker = startRouteWorker(h!.services);
    const base = { source: 'ci', fields: [{ label: 'env', value: 'prod' }] };
    await postAlert(h!, token, { ...base, title: 'too low', level: 'INFO' });
    await postAlert(h!, token, { ...base, title: 'other source', level: 'ERROR', source: 'cron' });
    await postAlert(h!, token, { ...base, title: 'other env', level: 'ERROR', fields: [{ label: 'env', value: 'dev' }] });
    await postAlert(h!, token, { ...base, title: 'forwarded', level: 'WARNING' });
    await eventually(async () => (await deliveries()).every((d) => d.state !== 'pending' && d.state !== 'sending') && (await deliveries()).length === 4, 'all four decided');
    expect(r.received.map((q) => q.json().title)).toEqual(['forwarded']);
    expect((await deliveries()).map((d) => [d.state, d.last_error])).toEqual([
      ['skipped', 'level INFO is below the route\'s WARNING'],
      ['skipped', 'source is not ci'],
      ['skipped', 'field env is not prod'],
      ['sent', null],
    ]);
  });

  it('retries 5xx and 429 after max(Retry-After, backoff) with the same webhook-id; gives up on other 4xx', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
    const { seed, token, routes } = await setup(clock);
    const answers = [{ status: 503, headers: { 'retry-after': '120' } }, { status: 429 }, { status: 200 }];
    const r = await receiver((_q, i) => answers[i] ?? { status: 200 });
    await routes.create(seed.general.id, 'webhook', { url: r.url }, {});
    worker = startRouteWorker(h!.services, { random: () => 0.5 });
    await postAlert(h!, token, { title: 'flaky' });
    await eventually(async () => (await deliveries())[0]?.last_status === 503, 'the first attempt');
    const first = (await deliveries())[0]!;
    expect(first).toMatchObject({ state: 'pending', attempts: 1, last_error: expect.stringContaining('answered 503') });
    // Retry-After 120 s beats the 10 s backoff.
    expect(Number(first.next_attempt_at) - clock.now()).toBe(120_000);
    clock.advance(120_000);
    worker.wake();
    await eventually(async () => (await deliveries())[0]?.last_status === 429, 'the second attempt');
    const second = (await deliveries())[0]!;
    // 2nd failure: 20 s doubled backoff with equal jitter at 0.5 → 15 s.
    expect(Number(second.next_attempt_at) - clock.now()).toBe(15_000);
    clock.advance(15_000);
    worker.wake();
    await eventually(async () => (await deliveries())[0]?.state === 'sent', 'the third attempt');
    expect(new Set(r.received.map((q) => q.headers['webhook-id'])).size).toBe(1);

    const refusing = await receiver(() => ({ status: 404, body: '{"error":"no such hook"}' }));
    await routes.update((await routes.list())[0]!.id, { target: { url: refusing.url } });
    await postAlert(h!, token, { title: 'gone' });
    await eventually(async () => (await deliveries())[1]?.state === 'failed', 'the 404 recorded as failed');
    expect((await deliveries())[1]).toMatchObject({ attempts: 1, last_status: 404 });
    expect(refusing.received).toHaveLength(1);
  });

  it('gives up after 24 h and pauses a route failing for an hour', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
    const { seed, token, routes } = await setup(clock);
    const r = await receiver(() => ({ status: 500 }));
    const { id } = await routes.create(seed.general.id, 'webhook', { url: r.url }, {});
    worker = startRouteWorker(h!.services, { random: () => 1 });
    await postAlert(h!, token, { title: 'down' });
    await eventually(async () => (await deliveries())[0]?.last_status === 500 && (await deliveries())[0]?.state === 'pending', 'the first attempt recorded');
    // Keep failing: each retry is due after at most 15 minutes.
    for (let i = 0; i < 12; i++) {
      clock.set(Number((await deliveries())[0]!.next_attempt_at));
      worker.wake();
      let seen: unknown;
      await eventually(async () => {
        seen = [clock.now(), await deliveries()];
        const d = (await deliveries())[0];
        return (d?.attempts === i + 2 && d.state !== 'sending') || (await routes.get(id)).state === 'paused';
      }, `attempt ${i + 2}`, { seen: () => seen });
      if ((await routes.get(id)).state === 'paused') break;
    }
    const paused = await routes.get(id);
    expect(paused.state).toBe('paused');
    expect(paused.pausedReason).toContain('paused after failing for an hour');
    // Resumed after the 24 h cut-off: the delivery is recorded failed, never sent.
    clock.advance(25 * 3_600_000);
    await routes.update(id, { state: 'active' });
    const sentBefore = r.received.length;
    worker.wake();
    await eventually(async () => (await deliveries())[0]?.state === 'failed', 'the give-up');
    expect((await deliveries())[0]!.last_error).toContain('gave up');
    expect(r.received.length).toBe(sentBefore);
  });

  it('delivers events of one alert in order: an update waits for the open that is still retrying', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
    const { seed, token, routes } = await setup(clock);
    const r = await receiver((_q, i) => (i === 0 ? { status: 502 } : { status: 200 }));
    await routes.create(seed.general.id, 'webhook', { url: r.url }, { events: ['alert.opened', 'alert.updated'] });
    worker = startRouteWorker(h!.services, { random: () => 0 });
    const run = (state: string) => ({ title: 'deploy', workflow: { runId: 'run-1', state, steps: [{ name: 'build', state: state === 'running' ? 'running' : 'done' }] } });
    await postAlert(h!, token, run('running'));
    await eventually(async () => (await deliveries())[0]?.last_status === 502, 'the failed open');
    // A failed run stays open, so its update is an alert.updated (a passed run resolves: alert.resolved).
    await postAlert(h!, token, run('failed'));
    worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await deliveries()).map((d) => d.state)).toEqual(['pending', 'pending']);
    clock.advance(10_000);
    worker.wake();
    await eventually(async () => (await deliveries()).every((d) => d.state === 'sent'), 'both sent');
    expect(r.received.map((q) => q.json().event)).toEqual(['alert.opened', 'alert.opened', 'alert.updated']);
  });

  it('the transport refuses loopback and private targets without ROUTES_ALLOW_PRIVATE, and follows no redirect', async () => {
    const r = await receiver((q) => (q.path === '/moved' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 }));
    const strict = createRouteTransport({ allowPrivate: false, now: () => Date.now() });
    closers.push(() => strict.close());
    for (const url of [`${r.url}/x`, `http://[::1]:${r.port}/x`, `http://localhost:${r.port}/x`, 'http://169.254.169.254/latest/meta-data', `http://[::ffff:7f00:1]:${r.port}/x`]) {
      const answer = await strict.send({ method: 'POST', url, headers: {}, body: '{}' });
      expect({ url, ok: answer.ok, retry: !answer.ok && answer.retry }).toEqual({ url, ok: false, retry: false });
    }
    expect(r.received).toHaveLength(0);
    const open = createRouteTransport({ allowPrivate: true, now: () => Date.now() });
    closers.push(() => open.close());
    const moved = await open.send({ method: 'POST', url: `${r.url}/moved`, headers: {}, body: '{}' });
    expect(moved).toMatchObject({ ok: false, status: 302, retry: false, error: expect.stringContaining('redirects are not followed') });
    expect(r.received.map((q) => q.path)).toEqual(['/moved']);
  });
});
