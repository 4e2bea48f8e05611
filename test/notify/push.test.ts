import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PUSH_SEND_LEASE_MS } from '../../src/db/shared/push-outbox.js';
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER } from '../../src/domain/push.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { startPushWorker } from '../../src/notify/push/start.js';
import { createPushTransport, guardedLookup } from '../../src/notify/push/transport.js';
import { listen, startHarness, type Harness, postAlert, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { FakePushService, verifyVapid, type TestSubscription } from '../helpers/push-service.js';
import { eventuallySeeing, FAST_RETRY, rows } from './setup.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Safari/537.36';

let svc: FakePushService;
beforeAll(async () => {
  svc = await FakePushService.start();
});
afterAll(() => svc.close());

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let notifier: Notifier;
let push: PushWorker;

beforeEach(async () => {
  // No SMTP_URL: e-mail is off, and push still follows the same fan-out.
  h = await startHarness({ env: { PUSH_ALLOW_PRIVATE: '1', MAIL_FROM: 'Alertbridge <ops@acme.test>' } });
  seed = await seedWorkspace(h.services);
  notifier = startNotifier(h.services, { mailer: null, retry: FAST_RETRY });
  push = startPushWorker(h.services, { ca: svc.ca, retry: FAST_RETRY });
  svc.received.length = 0;
  svc.statusFor.clear();
});
afterEach(async () => {
  await push.stop();
  await notifier.stop();
  await h.close();
});

function subscribe(userId: string, sub: TestSubscription) {
  return h.services.push.subscriptions.subscribe(userId, { endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }, UA);
}

async function post(channel: { webhookToken: string }, payload: unknown) {
  const { res, body } = await postAlert(h, channel.webhookToken, payload);
  expect(res.status).toBe(201);
  return body as { alertId: string };
}

describe('Web Push delivery', () => {
  it('encrypts the alert to the subscription (aes128gcm) and signs the request with the stored VAPID key', async () => {
    const sub = svc.subscription(`a-${Date.now()}`);
    await subscribe(seed.owner.id, sub);
    const { alertId } = await post(seed.general, { title: 'Deploy failed', level: 'ERROR', message: 'api crashed\nin   frankfurt, see [runbook](https://r.test/1)' });
    const [got] = await eventuallySeeing(() => (svc.received.length > 0 ? svc.received : null), 'the push', () => rows(h, 'SELECT * FROM push_deliveries'));
    expect(got!.path).toBe(new URL(sub.endpoint).pathname);
    expect(got!.payload).toEqual({
      title: '🚨 Deploy failed',
      // a masked link reads as its label: a notification has no room for the address
      body: 'api crashed in frankfurt, see runbook\n#general · Acme',
      url: `http://alertbridge.test/feed/c/${seed.general.id}`,
      tag: alertId,
      silent: false,
      alertId,
      channel: 'general',
      level: 'ERROR',
      actionToken: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/),
    });
    expect(got!.headers['content-encoding']).toBe('aes128gcm');
    expect(got!.headers['urgency']).toBe('high');
    expect(got!.headers['ttl']).toBe(String(24 * 3600));
    const claims = verifyVapid(String(got!.headers['authorization']), h.services.push.vapid.publicKey, svc.origin);
    expect(claims.sub).toBe('mailto:ops@acme.test');
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    // The settings page shows the device's last success.
    await eventually(async () => (await h.services.push.subscriptions.list(seed.owner.id))[0]?.lastSuccessAt, 'last success recorded');
    expect((await h.services.push.subscriptions.list(seed.owner.id))[0]!.device).toBe('Chrome on Linux');
  });

  it('a push service answering 410 deletes the subscription; the user\'s other device still gets it', async () => {
    const gone = svc.subscription(`gone-${Date.now()}`);
    const phone = svc.subscription(`phone-${Date.now()}`);
    svc.statusFor.set(new URL(gone.endpoint).pathname, 410);
    await subscribe(seed.owner.id, gone);
    await subscribe(seed.owner.id, phone);
    await post(seed.general, { title: 'Disk full', level: 'WARNING' });
    await eventually(() => svc.to(new URL(phone.endpoint).pathname.slice(6)).length === 1, 'the phone push');
    await eventuallySeeing(async () => (await h.services.push.subscriptions.list(seed.owner.id)).length === 1, 'the 410 subscription deleted', () =>
      rows(h, 'SELECT id FROM push_subscriptions'),
    );
    expect(svc.to(new URL(gone.endpoint).pathname.slice(6))).toHaveLength(1);
    expect(await rows(h, 'SELECT endpoint FROM push_subscriptions')).toEqual([{ endpoint: phone.endpoint }]);
  });

  it('retries a 5xx with backoff and delivers once the push service recovers', async () => {
    const sub = svc.subscription(`flaky-${Date.now()}`);
    const path = new URL(sub.endpoint).pathname;
    svc.statusFor.set(path, 503);
    await subscribe(seed.owner.id, sub);
    await post(seed.general, { title: 'Queue backlog', level: 'INFO' });
    await eventually(() => svc.received.length >= 1, 'the first attempt');
    svc.statusFor.delete(path);
    const ok = await eventually(() => svc.received.find((r) => r.payload), 'a decrypted retry');
    expect(ok.payload!.title).toBe('ℹ️ Queue backlog');
    await push.whenIdle();
    expect(await rows(h, 'SELECT state, attempts FROM push_deliveries')).toEqual([{ state: 'sent', attempts: 2 }]);
  });

  it('gives up after the last attempt: the outcomes are counted, and notify status shows the failure with its reason', async () => {
    await push.stop();
    const outcomes: string[] = [];
    push = startPushWorker(h.services, { ca: svc.ca, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 }, onOutcome: (o) => outcomes.push(o) });
    const sub = svc.subscription(`down-${Date.now()}`);
    svc.statusFor.set(new URL(sub.endpoint).pathname, 503);
    await subscribe(seed.owner.id, sub);
    const { alertId } = await post(seed.general, { title: 'Never delivered', level: 'ERROR' });
    await eventually(() => outcomes.length === 3, 'three attempts');
    await push.whenIdle();
    expect(outcomes).toEqual(['retry', 'retry', 'failed']);
    const status = await h.services.store.reports.outboxStatus(10);
    expect(status.pushes).toEqual({ failed: 1 });
    expect(status.failures).toEqual([
      expect.objectContaining({ what: 'push', userId: seed.owner.id, email: seed.owner.email, alertId, attempts: 3, lastError: expect.stringContaining('503') }),
    ]);
  });

  it('follows the e-mail rules: visibility and the per-channel level', async () => {
    const owner = svc.subscription(`o-${Date.now()}`);
    const member = svc.subscription(`m-${Date.now()}`);
    await subscribe(seed.owner.id, owner);
    await subscribe(seed.member.id, member);
    await h.services.notifyPrefs.set(seed.member.id, seed.general.id, 'important');
    await post(seed.secret, { title: 'Private incident', level: 'ERROR' }); // the member cannot see #security
    await post(seed.general, { title: 'FYI', level: 'INFO' }); // below the member's level
    await post(seed.general, { title: 'Outage', level: 'ERROR' });
    await notifier.whenIdle();
    await push.whenIdle();
    const titles = (name: string) => svc.to(name).map((r) => r.payload!.title).sort();
    expect(titles(new URL(owner.endpoint).pathname.slice(6))).toEqual(['ℹ️ FYI', '🚨 Outage', '🚨 Private incident']);
    expect(titles(new URL(member.endpoint).pathname.slice(6))).toEqual(['🚨 Outage']);
  });

  it('past the flood limit, pushes become one quiet summary per channel', async () => {
    const sub = svc.subscription(`flood-${Date.now()}`);
    await subscribe(seed.owner.id, sub);
    for (let i = 1; i <= 7; i++) await post(seed.deploys, { title: `Build ${i}`, level: 'INFO' });
    await notifier.whenIdle();
    await push.whenIdle();
    const got = svc.to(new URL(sub.endpoint).pathname.slice(6)).map((r) => r.payload!);
    expect(got).toHaveLength(7);
    expect(got.filter((p) => !p.silent)).toHaveLength(5);
    const quiet = got.filter((p) => p.silent);
    expect(quiet.map((p) => p.title).sort()).toEqual(['1 more alert in #deploys', '2 more alerts in #deploys']);
    expect(new Set(quiet.map((p) => p.tag))).toEqual(new Set([`flood-${seed.deploys.id}`]));
  });
});

describe('push notification actions', () => {
  it('Acknowledge and Resolve, as the service worker posts them with the payload\'s token: once, as the recipient, via push', async () => {
    const sub = svc.subscription(`act-${Date.now()}`);
    await subscribe(seed.member.id, sub);
    const { alertId } = await post(seed.general, { title: 'Disk full', level: 'ERROR' });
    const got = await eventually(() => svc.to(new URL(sub.endpoint).pathname.slice(6)).find((r) => r.payload?.alertId === alertId), 'the push');
    const token = (got.payload as { actionToken?: string }).actionToken!;
    const server = await listen(h.app.fetch);
    try {
      const act = (action: string, t = token) =>
        fetch(`${server.url}/alert-action/push`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: t, action }) });
      expect((await act('explode')).status).toBe(400);
      expect((await act('resolve', token.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')))).status).toBe(410);
      const done = await act('acknowledge');
      expect(done.status).toBe(200);
      expect(await done.json()).toEqual({ success: true, alertId, status: 'acknowledged' });
      // One token per notification: its two buttons share it, and it acts once.
      expect((await act('resolve')).status).toBe(410);
      expect(await rows(h, 'SELECT action, via, actor_id AS "actorId" FROM alert_history')).toEqual([{ action: 'acknowledged', via: 'push', actorId: seed.member.id }]);
      // A chat message or a resolved alert carries no buttons; neither does the e-mail token work here.
      const email = new URL(h.services.alertActionLinks.url(seed.member.id, alertId, 'resolve')).searchParams.get('t')!;
      expect((await act('resolve', email)).status).toBe(410);
    } finally {
      await server.close();
    }
  });
});

describe('SSRF guard at send time', () => {
  it('refuses a literal loopback endpoint before connecting, and a name resolving to loopback at the socket', async () => {
    const sub = svc.subscription(`ssrf-${Date.now()}`);
    const transport = createPushTransport({ vapid: h.services.push.vapid, subject: 'mailto:ops@acme.test', allowPrivate: false, ca: svc.ca });
    const out = await transport.send({ endpoint: sub.endpoint, ...sub.keys }, '{}', { urgency: 'normal' });
    expect(out).toEqual({ ok: false, gone: false, retry: false, reason: 'endpoint address is loopback' });
    expect(svc.received).toEqual([]);
    const resolved = (allow: boolean) =>
      new Promise<{ code?: string; addresses?: unknown }>((resolve) =>
        guardedLookup(allow)('localhost', { all: true }, (err, addresses) => resolve(err ? { code: (err as NodeJS.ErrnoException).code } : { addresses })),
      );
    expect(await resolved(false)).toEqual({ code: 'EREFUSEDADDRESS' });
    expect((await resolved(true)).addresses).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) })]));
  });
});

describe('crash safety', () => {
  it('a push cut off mid-send by a crash is recorded failed at the next start and never sent twice', async () => {
    await push.stop();
    const sub = svc.subscription(`crash-${Date.now()}`);
    await subscribe(seed.owner.id, sub);
    await post(seed.general, { title: 'Mid-send', level: 'ERROR' });
    await notifier.whenIdle();
    // The fan-out wrote the row in its transaction; the crash happened after the claim, during the request.
    expect(await rows(h, 'SELECT state FROM push_deliveries')).toEqual([{ state: 'pending' }]);
    expect(await h.exec("UPDATE push_deliveries SET state = 'sending', attempts = 1, updated_at = ?", [Date.now()])).toBe(1);
    // The next start, once the send lease is over: on PostgreSQL a start takes a row `sending` only when it was claimed longer
    // ago than that (it could be another live node's request: src/db/shared/push-outbox.ts); on SQLite, whatever the time.
    push = startPushWorker(h.services, { ca: svc.ca, retry: FAST_RETRY, clock: new ManualClock(Date.now() + PUSH_SEND_LEASE_MS + 1) });
    await push.whenIdle();
    expect(await rows(h, 'SELECT state, last_error AS "lastError" FROM push_deliveries')).toEqual([{ state: 'failed', lastError: expect.stringMatching(/^interrupted mid-send/) }]);
    expect(svc.to(new URL(sub.endpoint).pathname.slice(6))).toEqual([]);
  });
});

describe('subscriptions', () => {
  const body = (sub: TestSubscription) => ({ endpoint: sub.endpoint, keys: sub.keys });

  it('one row per endpoint, at most the limit per user, and keys that are real P-256 points', async () => {
    const subs = h.services.push.subscriptions;
    const first = svc.subscription('same');
    const a = await subs.subscribe(seed.owner.id, body(first), UA);
    const again = await subs.subscribe(seed.owner.id, body(first), UA);
    expect(again).toMatchObject({ id: a.id, created: false });
    for (let i = 1; i < MAX_PUSH_SUBSCRIPTIONS_PER_USER; i++) await subs.subscribe(seed.owner.id, body(svc.subscription(`n${i}`)), UA);
    await expect(subs.subscribe(seed.owner.id, body(svc.subscription('one-too-many')), UA)).rejects.toThrow(/At most 10 devices/);
    expect(await subs.list(seed.owner.id)).toHaveLength(MAX_PUSH_SUBSCRIPTIONS_PER_USER);
    await expect(subs.subscribe(seed.member.id, { endpoint: first.endpoint, keys: { p256dh: 'AAAA', auth: first.keys.auth } }, UA)).rejects.toThrow(/p256dh/);
    // Another user signing in on the same browser takes the endpoint over.
    expect(await subs.subscribe(seed.member.id, body(first), UA)).toMatchObject({ id: a.id, created: false });
    expect(await subs.list(seed.owner.id)).toHaveLength(MAX_PUSH_SUBSCRIPTIONS_PER_USER - 1);
    expect(await subs.remove(seed.owner.id, a.id)).toBe(false);
    expect(await subs.remove(seed.member.id, a.id)).toBe(true);
  });
});
