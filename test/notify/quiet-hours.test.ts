import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNotifier } from '../../src/notify/outbox-worker.js';
import { type HarnessNode, postAlert } from '../helpers/harness.js';
import { FakePushService } from '../helpers/push-service.js';
import { adminJson, startClocked, stopClocked, type ClockedEnv } from './clocked.js';
import { FAST_RETRY, rows } from './setup.js';

// Quiet hours over real HTTP on testEngine(), with an injected clock: the webhook stores alerts, the
// fan-out holds what the owner's quiet hours keep back (no e-mail, no push), and one digest e-mail
// reaches the real SMTP sink when the window ends — once, across a restart too.

// Tuesday 2026-03-10 21:30 UTC = 22:30 in Berlin (UTC+1): inside 22:00–07:00. The window ends at 07:00 Berlin = 06:00 UTC.
const NIGHT = Date.UTC(2026, 2, 10, 21, 30);
const WINDOW_END = Date.UTC(2026, 2, 11, 6, 0);
const OWNER = 'owner@acme.test';
const MEMBER = 'member@acme.test';

let svc: FakePushService;
beforeAll(async () => {
  svc = await FakePushService.start();
});
afterAll(() => svc.close());

/** `node`: the service as it runs now (a restart replaces it; `h` still closes it). */
type Env = ClockedEnv & { node: HarnessNode };
let t: Env | undefined;
afterEach(async () => {
  if (t) await stopClocked(t);
  t = undefined;
});

async function start(): Promise<Env> {
  const env = await startClocked(svc, NIGHT);
  t = { ...env, node: env.h };
  return t;
}

const admin = adminJson;

async function post(e: Env, channel: { webhookToken: string }, payload: unknown): Promise<string> {
  const { res, body } = await postAlert(e.node, channel.webhookToken, payload);
  expect(res.status).toBe(201);
  return (body as { alertId: string }).alertId;
}

/** Moves the service's clock and lets the worker pass at the new time until nothing is due. */
async function at(e: Env, time: number): Promise<void> {
  e.clock.set(time);
  e.notifier.wake();
  await e.notifier.whenIdle();
}

const subjects = (e: Env, email: string) => e.sink.to(email).map((m) => m.subject).sort();
const pushedTo = async (e: Env, userId: string) =>
  (await rows<{ alertId: string }>(e.h, 'SELECT alert_id AS "alertId" FROM push_deliveries WHERE user_id = ? ORDER BY alert_id', userId)).map((r) => r.alertId);

describe('quiet hours', () => {
  it('inside the window only alerts at or above the level notify (e-mail and push); the rest come as ONE digest when it ends', async () => {
    const e = await start();
    const set = await admin(e, 'notify', 'quiet-hours', '--user', OWNER, '--window', '22:00-07:00', '--tz', 'Europe/Berlin');
    expect(set.code).toBe(0);
    expect(set.json).toEqual({ userId: e.seed.owner.id, email: OWNER, quietHours: { window: '22:00-07:00', timeZone: 'Europe/Berlin', minLevel: 'error' } });
    expect((await admin(e, 'notify', 'get', '--user', OWNER)).json).toMatchObject({ quietHours: { window: '22:00-07:00', minLevel: 'error' } });

    const disk = await post(e, e.seed.general, { title: 'Disk 91% on db-1', level: 'warning' });
    const down = await post(e, e.seed.general, { title: 'DB down', level: 'error' });
    const deploy = await post(e, e.seed.deploys, { title: 'Deploy v1.4 done', level: 'success' });
    e.clock.set(NIGHT + 30 * 60_000);
    const gone = await post(e, e.seed.deploys, { title: 'Canary failing', level: 'warning' });
    await e.sink.waitFor(5);
    await e.notifier.whenIdle();

    // The member has no quiet hours: four e-mails. The owner hears only the error, by e-mail and push.
    expect(subjects(e, MEMBER)).toHaveLength(4);
    expect(subjects(e, OWNER)).toEqual(['[ERROR] #general — DB down']);
    expect(await pushedTo(e, e.seed.owner.id)).toEqual([down]);
    expect(await rows(e.h, 'SELECT due_at AS "dueAt", state FROM quiet_digests')).toEqual([{ dueAt: WINDOW_END, state: 'pending' }]);

    // Meanwhile one held alert is resolved and another deleted: both are left out of the digest, and counted.
    expect((await e.node.call('PATCH', `/api/alerts/${deploy}`, { token: e.seed.ownerToken, json: { status: 'resolved' } })).status).toBe(200);
    expect((await admin(e, 'alert', 'delete', '--id', gone)).code).toBe(0);

    await at(e, WINDOW_END - 1);
    expect(e.sink.to(OWNER)).toHaveLength(1);
    await at(e, WINDOW_END);
    await e.sink.waitFor(6);
    const [digest] = e.sink.to(OWNER).filter((m) => m.subject.startsWith('[Quiet hours]'));
    expect(digest!.subject).toBe('[Quiet hours] 1 alert while you were away (22:00–07:00 Europe/Berlin)');
    expect(digest!.text).toContain('[WARNING] #general — Disk 91% on db-1 — 22:30');
    expect(digest!.text).toContain(`/channels/${e.seed.general.id}`);
    expect(digest!.text).toContain('Left out: 1 resolved and 1 deleted meanwhile.');
    expect(digest!.html).toContain('Disk 91% on db-1');
    expect(digest!.text).not.toContain('DB down');
    expect(disk).toBeTruthy();

    // Sent once: more passes later send nothing more.
    await at(e, WINDOW_END + 60 * 60_000);
    expect(e.sink.to(OWNER).filter((m) => m.subject.startsWith('[Quiet hours]'))).toHaveLength(1);
    expect(await rows(e.h, 'SELECT state FROM quiet_digests')).toEqual([{ state: 'sent' }]);
    expect((await admin(e, 'notify', 'status')).json).toMatchObject({ quietDigests: { sent: 1 } });

    // Outside the window everything notifies at once again.
    await post(e, e.seed.general, { title: 'Morning warning', level: 'warning' });
    await e.sink.waitFor(8);
    expect(subjects(e, OWNER)).toContain('[WARNING] #general — Morning warning');
  });

  it('the level is the user\'s choice; a window that holds nothing sends no digest; --clear ends quiet hours', async () => {
    const e = await start();
    expect((await admin(e, 'notify', 'quiet-hours', '--user', OWNER, '--window', '22:00-07:00', '--tz', 'Europe/Berlin', '--min-level', 'warning')).code).toBe(0);
    await post(e, e.seed.general, { title: 'Disk 91%', level: 'warning' });
    await post(e, e.seed.general, { title: 'FYI', level: 'info' });
    await e.sink.waitFor(3);
    await e.notifier.whenIdle();
    expect(subjects(e, OWNER)).toEqual(['[WARNING] #general — Disk 91%']);

    // The held alert is resolved before the end: nothing left to say, no e-mail.
    const [fyi] = await rows<{ id: string }>(e.h, "SELECT id FROM alerts WHERE title = 'FYI'");
    await e.node.call('PATCH', `/api/alerts/${fyi!.id}`, { token: e.seed.ownerToken, json: { status: 'resolved' } });
    await at(e, WINDOW_END);
    expect(e.sink.to(OWNER)).toHaveLength(1);
    expect(await rows(e.h, 'SELECT state FROM quiet_digests')).toEqual([{ state: 'skipped' }]);

    const bad = await admin(e, 'notify', 'quiet-hours', '--user', OWNER, '--window', '22:00-07:00', '--tz', 'Mars/Olympus');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('time zone');
    expect((await admin(e, 'notify', 'quiet-hours', '--user', OWNER, '--clear')).json).toMatchObject({ quietHours: null });
    e.clock.set(NIGHT + 24 * 3_600_000);
    await post(e, e.seed.general, { title: 'Night info', level: 'info' });
    await e.sink.waitFor(5);
    expect(subjects(e, OWNER)).toContain('[INFO] #general — Night info');
  });

  it('a person without a verified address gets no digest (recorded skipped); the held alert stays in the feed', async () => {
    const e = await start();
    await e.h.services.quietHours.set(e.seed.member.id, { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' });
    await e.h.services.accounts.changeEmail(e.seed.member.id, 'member.new@acme.test', { verified: false });
    const held = await post(e, e.seed.general, { title: 'Held, nowhere to send', level: 'warning' });
    await e.sink.waitFor(1); // the owner's
    await at(e, WINDOW_END);
    expect(e.sink.messages.map((m) => m.subject)).toEqual(['[WARNING] #general — Held, nowhere to send']);
    expect(await rows(e.h, 'SELECT state, last_error AS "lastError" FROM quiet_digests')).toEqual([
      { state: 'skipped', lastError: 'no verified e-mail address: quiet-hours digests need one' },
    ]);
    expect((await e.node.call('GET', `/api/alerts/${held}`, { token: e.seed.memberToken })).status).toBe(200);
  });

  it('the digest survives a restart and is sent once', async () => {
    const e = await start();
    await e.h.services.quietHours.set(e.seed.owner.id, { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' });
    await post(e, e.seed.general, { title: 'Held over a restart', level: 'warning' });
    await e.sink.waitFor(1);
    await e.notifier.whenIdle();
    expect(e.sink.to(OWNER)).toHaveLength(0);

    await e.notifier.stop();
    e.node = await e.h.restart({ overrides: { clock: e.clock } });
    e.clock.set(WINDOW_END + 5 * 60_000);
    e.notifier = startNotifier(e.node.services, { retry: FAST_RETRY });
    await e.sink.waitFor(2);
    await e.notifier.whenIdle();
    expect(e.sink.to(OWNER).map((m) => m.subject)).toEqual(['[Quiet hours] 1 alert while you were away (22:00–07:00 Europe/Berlin)']);
  });
});
