import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEscalationScheduler, type EscalationScheduler } from '../../src/notify/escalation-scheduler.js';
import { startNotifier } from '../../src/notify/outbox-worker.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { startPushWorker } from '../../src/notify/push/start.js';
import { postAlert } from '../helpers/harness.js';
import { FakePushService } from '../helpers/push-service.js';
import { adminJson, startClocked, stopClocked, type ClockedEnv } from '../notify/clocked.js';
import { FAST_RETRY, rows } from '../notify/setup.js';

// Escalation per channel over real HTTP on testEngine(), with an injected clock: the webhook opens
// the alert, the API acknowledges and snoozes it, the scheduler's passes write the steps and the
// outbox delivers them to a real SMTP sink and a local push service.

const START = Date.UTC(2026, 2, 2, 9);
const MIN = 60_000;

let svc: FakePushService;
beforeAll(async () => {
  svc = await FakePushService.start();
});
afterAll(() => svc.close());

type Env = ClockedEnv & { push: PushWorker; escalation: EscalationScheduler };
let t: Env | undefined;
afterEach(async () => {
  if (!t) return;
  await t.escalation.stop();
  await stopClocked(t);
  t = undefined;
});

async function start(): Promise<Env> {
  const env = await startClocked(svc, START, { push: true });
  t = { ...env, push: env.push!, escalation: startEscalationScheduler(env.h.services) };
  return t;
}

const admin = adminJson;

async function post(e: Env, payload: unknown): Promise<string> {
  const { res, body } = await postAlert(e.h, e.seed.general.webhookToken, payload);
  expect(res.status).toBe(201);
  return (body as { alertId: string }).alertId;
}

async function patch(e: Env, id: string, body: unknown, token = e.seed.memberToken) {
  const res = await e.h.call('PATCH', `/api/alerts/${id}`, { token, json: body });
  expect(res.status).toBe(200);
}

/** Moves the clock, runs the scheduler's passes, and lets e-mail and push deliver what they wrote. */
async function at(e: Env, minutes: number): Promise<void> {
  e.clock.set(START + minutes * MIN);
  await e.escalation.runOnce();
  await e.notifier.whenIdle();
  await e.push.whenIdle();
}

/** "recipient subject" of every escalation e-mail so far, in order. */
const escalations = (e: Env) =>
  e.sink.messages.filter((m) => m.subject.startsWith('Escalation')).map((m) => `${m.rcpt.join(',')} ${m.subject}`);

const POLICY = ['channel', 'set-escalation', '--min-level', 'warning', '--after', '10m', '--every', '5m', '--times', '2'];

describe('escalation steps', () => {
  it('re-notifies the channel after 10m and every 5m twice, then the owners and admins; each step once', async () => {
    const e = await start();
    const set = await admin(e, ...POLICY, '--channel', e.seed.general.id);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ channelId: e.seed.general.id, minLevel: 'WARNING', after: '10m', every: '5m', times: 2, steps: 3, then: null });
    await post(e, { title: 'Disk 95% on db-1', level: 'error', message: 'only 2 GB left' });
    await post(e, { title: 'Deploy done', level: 'info' });
    await e.sink.waitFor(4);

    await at(e, 9);
    expect(escalations(e)).toEqual([]);
    await at(e, 10);
    const first = ['member@acme.test Escalation 1 of 3: [ERROR] #general — Disk 95% on db-1', 'owner@acme.test Escalation 1 of 3: [ERROR] #general — Disk 95% on db-1'];
    await e.sink.waitFor(6);
    expect(escalations(e).sort()).toEqual(first);
    // Looking again at the same moment, or a moment later, sends nothing more.
    await at(e, 10);
    await at(e, 14);
    expect(escalations(e)).toHaveLength(2);

    await at(e, 15);
    await e.sink.waitFor(8);
    expect(escalations(e).slice(2).sort()).toEqual(first.map((s) => s.replace('1 of 3', '2 of 3')));
    await at(e, 20);
    await e.sink.waitFor(9);
    // The last step: the workspace's owners and admins (here the owner), not the channel.
    expect(escalations(e).slice(4)).toEqual(['owner@acme.test Escalation 3 of 3: [ERROR] #general — Disk 95% on db-1']);
    const mail = e.sink.messages.at(-1)!;
    expect(mail.text).toContain('Escalation 3 of 3: this alert is still open');
    expect(mail.html).toContain('Acknowledge');

    // A new scheduler (a restart) finds every step done.
    await e.escalation.stop();
    e.escalation = startEscalationScheduler(e.h.services);
    await at(e, 120);
    expect(escalations(e)).toHaveLength(5);
    const pushed = svc.to(e.pushName).map((p) => (p.payload as { title: string }).title);
    expect(pushed.filter((title) => title.startsWith('Escalation'))).toEqual([
      'Escalation 1 of 3: 🚨 Disk 95% on db-1', 'Escalation 2 of 3: 🚨 Disk 95% on db-1', 'Escalation 3 of 3: 🚨 Disk 95% on db-1',
    ]);
    expect(await rows(e.h, `SELECT count(*) AS n FROM notification_jobs WHERE kind = 'alert.escalated'`)).toEqual([{ n: 3 }]);
  });

  it('stops at an acknowledgement, and a snooze that ends re-arms it', async () => {
    const e = await start();
    await admin(e, ...POLICY, '--channel', e.seed.general.id);
    const acked = await post(e, { title: 'Queue backlog', level: 'warning' });
    const snoozed = await post(e, { title: 'Cert expires soon', level: 'warning' });
    await e.sink.waitFor(4);
    await at(e, 10);
    await e.sink.waitFor(8);
    expect(escalations(e)).toHaveLength(4);

    e.clock.set(START + 11 * MIN);
    await patch(e, acked, { status: 'acknowledged' });
    await patch(e, snoozed, { snoozedUntil: new Date(START + 60 * MIN).toISOString() });
    await at(e, 15);
    await at(e, 40);
    expect(escalations(e)).toHaveLength(4);
    expect(await rows(e.h, 'SELECT count(*) AS n FROM alert_escalations WHERE alert_id = ?', acked)).toEqual([{ n: 0 }]);

    // The snooze ends at 60 min: a new spell, whose first step is due 10 min later.
    await at(e, 65);
    expect(escalations(e)).toHaveLength(4);
    await at(e, 70);
    await e.sink.waitFor(6);
    expect(escalations(e).slice(4).sort()).toEqual([
      'member@acme.test Escalation 1 of 3: [WARNING] #general — Cert expires soon', 'owner@acme.test Escalation 1 of 3: [WARNING] #general — Cert expires soon',
    ]);
  });

  it('sends the last step to the --then people, whatever their level for the channel', async () => {
    const e = await start();
    const set = await admin(e, 'channel', 'set-escalation', '--channel', e.seed.general.id, '--min-level', 'error', '--after', '30s', '--every', '1m', '--times', '1', '--then', 'member@acme.test');
    expect(set.json).toMatchObject({ steps: 2, then: ['member@acme.test'], thenIsOwnersAndAdmins: false });
    await e.h.services.notifyPrefs.set(e.seed.member.id, e.seed.general.id, 'none');
    await post(e, { title: 'Payments down', level: 'error' });
    await post(e, { title: 'Slow page', level: 'warning' });
    await e.sink.waitFor(2);
    await at(e, 0.5);
    await e.sink.waitFor(3);
    expect(escalations(e)).toEqual(['owner@acme.test Escalation 1 of 2: [ERROR] #general — Payments down']);
    await at(e, 1.5);
    await e.sink.waitFor(4);
    expect(escalations(e).slice(1)).toEqual(['member@acme.test Escalation 2 of 2: [ERROR] #general — Payments down']);
    await at(e, 30);
    expect(escalations(e)).toHaveLength(2);
  });

  it('holds a step back from a person in quiet hours below their level, and adds it to no digest', async () => {
    const e = await start();
    await admin(e, ...POLICY, '--channel', e.seed.general.id);
    // 08:00–12:00 UTC holds everything below ERROR for the member; the clock starts at 09:00 UTC.
    const quiet = await admin(e, 'notify', 'quiet-hours', '--user', 'member@acme.test', '--window', '08:00-12:00', '--tz', 'UTC', '--min-level', 'error');
    expect(quiet.code).toBe(0);
    const id = await post(e, { title: 'Queue backlog', level: 'warning' });
    await e.sink.waitFor(1);
    await at(e, 10);
    await e.sink.waitFor(2);
    await at(e, 15);
    await e.sink.waitFor(3);
    expect(escalations(e)).toEqual([
      'owner@acme.test Escalation 1 of 3: [WARNING] #general — Queue backlog',
      'owner@acme.test Escalation 2 of 3: [WARNING] #general — Queue backlog',
    ]);
    expect(e.sink.to('member@acme.test')).toEqual([]);
    // The alert itself waits in the member's digest once; the steps add nothing to it.
    expect(await rows(e.h, 'SELECT count(*) AS n FROM quiet_holds WHERE alert_id = ?', id)).toEqual([{ n: 1 }]);
  });

  it('never escalates a silenced alert', async () => {
    const e = await start();
    await admin(e, ...POLICY, '--channel', e.seed.general.id);
    await e.h.services.silences.create({ workspaceId: e.seed.ws.id, channel: e.seed.general.id, level: 'error', for: '1h', comment: 'migration', actor: 'owner@acme.test' });
    const muted = await post(e, { title: 'Replica lag', level: 'error' });
    await e.notifier.whenIdle();
    await at(e, 10);
    await at(e, 20);
    await at(e, 90);
    expect(e.sink.messages).toEqual([]);
    expect(await rows(e.h, 'SELECT count(*) AS n FROM alert_escalations WHERE alert_id = ?', muted)).toEqual([{ n: 0 }]);
  });
});

describe('channel set-escalation', () => {
  it('prints the policy as JSON, refuses bad values with their reason, and --clear removes it', async () => {
    const e = await start();
    const bad = [
      [['--min-level', 'loud'], /the level must be one of info, success, warning, error/],
      [['--after', '10 minutes'], /after must be an integer and a unit/],
      [['--every', '5s'], /every must be from 30s to 30d/],
      [['--times', '0'], /times must be a whole number from 1 to 10/],
      [['--then', 'stranger@other.test'], /not a member of this workspace/],
    ] as const;
    for (const [flags, reason] of bad) {
      const args = [...POLICY, '--channel', e.seed.general.id];
      const i = args.indexOf(flags[0]);
      if (i >= 0) args.splice(i, 2, ...flags);
      else args.push(...flags);
      const r = await admin(e, ...args);
      expect(r.code, flags.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(reason);
    }
    expect(await rows(e.h, 'SELECT count(*) AS n FROM escalation_policies')).toEqual([{ n: 0 }]);
    expect((await admin(e, ...POLICY, '--channel', e.seed.general.id, '--then', 'owner@acme.test,member@acme.test')).json).toMatchObject({
      then: ['owner@acme.test', 'member@acme.test'],
    });
    expect((await admin(e, 'channel', 'set-escalation', '--channel', e.seed.general.id, '--clear')).json).toEqual({ channelId: e.seed.general.id, cleared: true });
    expect((await admin(e, 'channel', 'set-escalation', '--channel', e.seed.general.id, '--clear')).json).toEqual({ channelId: e.seed.general.id, cleared: false });
    const usage = await admin(e, 'channel', 'set-escalation', '--channel', e.seed.general.id, '--clear', '--times', '2');
    expect(usage.code).toBe(2);
    expect((await admin(e, 'channel', 'set-escalation', '--channel', 'nope', '--clear')).code).not.toBe(0);
  });
});

describe('a changed policy', () => {
  it('applies at once to the alerts escalating on the channel', async () => {
    const e = await start();
    await admin(e, ...POLICY, '--channel', e.seed.general.id);
    await post(e, { title: 'Backup late', level: 'warning' });
    await e.sink.waitFor(2);
    await at(e, 10);
    await e.sink.waitFor(4);
    // Every 5m, twice, then the owners → once, then the member: at 12 min, step 2 of 2 is due under the new rules.
    await e.h.services.escalation.escalations.set({ channel: e.seed.general.id, minLevel: 'warning', after: '10m', every: '2m', times: '1', then: ['member@acme.test'] });
    await at(e, 12);
    await e.sink.waitFor(5);
    expect(escalations(e).slice(2)).toEqual(['member@acme.test Escalation 2 of 2: [WARNING] #general — Backup late']);
    await at(e, 60);
    expect(escalations(e)).toHaveLength(3);
  });
});

describe('an acknowledgement between a step and its send', () => {
  it('skips the step already queued: nobody is reminded of an alert someone took', async () => {
    const e = await start();
    await admin(e, ...POLICY, '--channel', e.seed.general.id);
    const id = await post(e, { title: 'API 5xx rate high', level: 'error' });
    await e.sink.waitFor(2);
    await e.notifier.whenIdle();
    await e.push.whenIdle();
    // The step is written while no worker sends, then the alert is acknowledged, then the workers run.
    await e.notifier.stop();
    await e.push.stop();
    e.clock.set(START + 10 * MIN);
    await e.escalation.runOnce();
    expect(await rows(e.h, `SELECT count(*) AS n FROM notification_jobs WHERE kind = 'alert.escalated'`)).toEqual([{ n: 1 }]);
    await patch(e, id, { status: 'acknowledged' });
    e.notifier = startNotifier(e.h.services, { retry: FAST_RETRY });
    e.push = startPushWorker(e.h.services, { ca: svc.ca, retry: FAST_RETRY });
    await e.notifier.whenIdle();
    await e.push.whenIdle();
    expect(escalations(e)).toEqual([]);
    const skipped = await rows<{ state: string; reason: string }>(e.h, `SELECT d.state, d.last_error AS reason FROM notification_deliveries d JOIN notification_jobs j ON j.id = d.job_id WHERE j.kind = 'alert.escalated'`);
    expect(skipped.map((r) => `${r.state}: ${r.reason}`)).toEqual(['skipped: alert acknowledged before the escalation was sent', 'skipped: alert acknowledged before the escalation was sent']);
    expect(svc.to(e.pushName).filter((p) => (p.payload as { title: string }).title.startsWith('Escalation'))).toEqual([]);
  });
});
