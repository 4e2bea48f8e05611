import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startAccountMailer, type AccountMailer } from '../../src/notify/account-mail-worker.js';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

/**
 * Issue 27: a route failing for an hour is paused, and its workspace's owners and admins (with a
 * proven address) get one e-mail saying so, through the account e-mail outbox and a real SMTP
 * server, once per pause.
 */
let h: Harness | undefined;
let worker: RouteWorker | undefined;
let mailer: AccountMailer | null = null;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await worker?.stop();
  await mailer?.stop();
  worker = undefined;
  mailer = null;
  for (const close of closers.splice(0)) await close();
  await h?.close();
  h = undefined;
});

const settled = async () => (await deliveries()).every((d) => d.state !== 'sending');
const deliveries = () => h!.query<{ attempts: number; state: string; next_attempt_at: number }>('SELECT attempts, state, next_attempt_at FROM route_deliveries ORDER BY id');

/** Lets the clock run through the retries until the route is paused (the first attempt included). */
async function failForAnHour(clock: ManualClock, routeId: string) {
  const routes = h!.services.routes.routes;
  for (let i = 0; i < 20 && (await routes.get(routeId)).state !== 'paused'; i++) {
    const pending = (await deliveries()).find((d) => d.state === 'pending');
    if (pending) clock.set(Math.max(clock.now(), Number(pending.next_attempt_at)));
    worker!.wake();
    const before = (await deliveries()).reduce((n, d) => n + d.attempts, 0);
    await eventually(async () => ((await deliveries()).reduce((n, d) => n + d.attempts, 0) > before && (await settled())) || (await routes.get(routeId)).state === 'paused' || undefined, `attempt ${i + 1}`);
  }
  expect((await routes.get(routeId)).state).toBe('paused');
}

describe('the pause notice', () => {
  it('e-mails each owner and admin with a proven address once per pause', async () => {
    const sink = await SmtpSink.start();
    closers.push(() => sink.close());
    const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
    h = await startHarness({ serve: true, env: { ROUTES_ALLOW_PRIVATE: '1', SMTP_URL: sink.url }, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const a = h.services.accounts;
    const admin = await a.createUser('ada@acme.test', 'Ada Admin');
    await a.addMember(seed.ws.id, admin.id, 'admin');
    const unproven = await a.createUser('una@acme.test', 'Una Unproven', { verified: false });
    await a.addMember(seed.ws.id, unproven.id, 'admin');
    const token = (await a.rotateWebhook(seed.general.id)).webhookToken;
    const r = await startFakeReceiver(() => ({ status: 503, body: 'down' }));
    closers.push(r.close);
    const { id } = await h.services.routes.routes.create(seed.general.id, 'slack', { url: `${r.url}/services/T1/B2/secretZZZZ` }, {});
    worker = startRouteWorker(h.services, { random: () => 1 });
    mailer = startAccountMailer(h.services);
    await postAlert(h, token, { title: 'Disk full', level: 'ERROR' });
    await eventually(async () => ((await deliveries())[0]?.attempts === 1 && (await settled())) || undefined, 'the first attempt');
    await failForAnHour(clock, id);

    await eventually(() => (sink.messages.length >= 2 ? true : undefined), 'two notices');
    // The worker keeps running past the pause: no second notice for the same pause.
    clock.advance(3_600_000);
    worker.wake();
    mailer!.wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.map((m) => m.rcpt).flat().sort()).toEqual(['ada@acme.test', 'owner@acme.test']);
    const mail = sink.messages[0]!;
    expect(mail.subject).toMatch(/^Route paused: slack → 127\.0\.0\.1:\d+\/…ZZZZ \(General\)$/);
    expect(mail.text).toContain('failed for an hour and was paused');
    expect(mail.text).toMatch(/Last error: 127\.0\.0\.1:\d+ answered 503\n/);
    expect(mail.text).toContain(`${h.services.config.publicUrl}/channels/${seed.general.id}/routes/${id}`);
    // The target is a credential: the notice names it masked.
    expect(mail.text + mail.html).not.toContain('secretZZZZ');

    // Resumed and failing for another hour: a second pause, a second notice to each.
    await h.services.routes.routes.update(id, { state: 'active' });
    await failForAnHour(clock, id);
    await eventually(() => (sink.messages.length >= 4 ? true : undefined), 'the second pause notices');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages).toHaveLength(4);
  });
});
