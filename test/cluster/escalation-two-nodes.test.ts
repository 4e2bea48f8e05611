import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startEscalationScheduler, type EscalationScheduler } from '../../src/notify/escalation-scheduler.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { startBackground } from '../../src/runtime.js';
import type { LeaderPart } from '../../src/lib/singletons.js';
import { eventually } from '../helpers/poll.js';
import { createEngineHarness, type Harness, type HarnessNode, postAlert, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM, rows } from '../notify/setup.js';

/**
 * Escalation with two nodes on one PostgreSQL database, sharing an injected clock. The leader lock
 * normally lets one node run the passes; here both run them at the same moments, as during a
 * leadership hand-over, and each step is still written, and e-mailed, once.
 */
describePg('escalation across two PostgreSQL nodes', () => {
  const START = Date.UTC(2026, 2, 2, 9);
  const clock = new ManualClock(START);
  let sink: SmtpSink;
  let a: Harness;
  let b: HarnessNode;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  const notifiers: Notifier[] = [];
  const schedulers: EscalationScheduler[] = [];
  beforeAll(async () => {
    sink = await SmtpSink.start();
    const env = { SMTP_URL: sink.url, MAIL_FROM };
    a = await createEngineHarness('postgres', { env, overrides: { clock } });
    b = await a.node({ env, overrides: { clock } });
    seed = await seedWorkspace(a.services);
    for (const n of [a, b]) {
      notifiers.push(startNotifier(n.services, { retry: FAST_RETRY }));
      schedulers.push(startEscalationScheduler(n.services));
    }
  });
  afterAll(async () => {
    for (const s of schedulers) await s.stop();
    for (const n of notifiers) await n.stop();
    await sink?.close();
    await a?.close();
  });

  const at = async (minutes: number) => {
    clock.set(START + minutes * 60_000);
    await Promise.all(schedulers.map((s) => s.runOnce()));
    await Promise.all(notifiers.map((n) => n.whenIdle()));
  };

  it('each step happens once, whichever node looks', async () => {
    await b.services.escalation.escalations.set({ channel: seed.general.id, minLevel: 'error', after: '10m', every: '10m', times: '2' });
    // Posted to both nodes: the alerts' change events reach the cursor from either.
    for (const [n, title] of [[a, 'Disk full on db-1'], [b, 'Disk full on db-2']] as const) {
      const { res } = await postAlert(n, seed.general.webhookToken, { title, level: 'error' });
      expect(res.status).toBe(201);
    }
    await sink.waitFor(4);
    for (const minute of [10, 10, 15, 20, 20, 25, 30, 30, 60]) await at(minute);
    await sink.waitFor(4 + 2 * 2 * 2 + 2);
    await at(120);
    const subjects = sink.messages.filter((m) => m.subject.startsWith('Escalation')).map((m) => `${m.rcpt.join(',')} ${m.subject}`).sort();
    const expected = ['db-1', 'db-2'].flatMap((db) => [
      `member@acme.test Escalation 1 of 3: [ERROR] #general — Disk full on ${db}`,
      `member@acme.test Escalation 2 of 3: [ERROR] #general — Disk full on ${db}`,
      `owner@acme.test Escalation 1 of 3: [ERROR] #general — Disk full on ${db}`,
      `owner@acme.test Escalation 2 of 3: [ERROR] #general — Disk full on ${db}`,
      `owner@acme.test Escalation 3 of 3: [ERROR] #general — Disk full on ${db}`,
    ]);
    expect(subjects).toEqual(expected.sort());
    expect(await rows(a, `SELECT count(*) AS n FROM notification_jobs WHERE kind = 'alert.escalated'`)).toEqual([{ n: 6 }]);
  });

  it('in the running service, only the leader runs the escalation scheduler', async () => {
    const runtimes = [await startBackground(a.services), await startBackground(b.services)];
    try {
      const parts = runtimes.map((r) => r.parts.find((p) => p.name === 'escalation') as LeaderPart);
      await eventually(() => parts.filter((p) => p.running).length === 1, 'one escalation scheduler');
      expect(parts.map((p) => p.running)).toEqual([a.services.leadership.isLeader, b.services.leadership.isLeader]);
    } finally {
      for (const r of runtimes) await r.stop();
    }
  });
});
