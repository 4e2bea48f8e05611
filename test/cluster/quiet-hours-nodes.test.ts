import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { createEngineHarness, type Harness, type HarnessNode, postAlert, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from '../notify/setup.js';

/**
 * Quiet hours on two PostgreSQL nodes, each with its own outbox worker and one shared injected
 * clock: alerts held on either node join the owner's one digest row, and when the window ends both
 * workers pass at once, yet exactly one digest e-mail leaves, listing both.
 */
const NIGHT = Date.UTC(2026, 2, 10, 21, 30); // 22:30 in Berlin
const WINDOW_END = Date.UTC(2026, 2, 11, 6, 0); // 07:00 in Berlin

describePg('quiet hours on two nodes', () => {
  let a: Harness;
  let b: HarnessNode;
  let sink: SmtpSink;
  let workers: Notifier[] = [];
  const clock = new ManualClock(NIGHT);
  beforeAll(async () => {
    sink = await SmtpSink.start();
    const env = { SMTP_URL: sink.url, MAIL_FROM };
    a = await createEngineHarness('postgres', { env, overrides: { clock } });
    b = await a.node({ env, overrides: { clock } });
    workers = [startNotifier(a.services, { retry: FAST_RETRY }), startNotifier(b.services, { retry: FAST_RETRY })];
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await sink?.close();
    await a?.close();
  });

  it('held on both nodes, one digest e-mail at the window end', async () => {
    const seed = await seedWorkspace(a.services);
    await b.services.quietHours.set(seed.owner.id, { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', minLevel: 'error' });
    const sent = await Promise.all([
      postAlert(a, seed.general.webhookToken, { title: 'Held on A', level: 'warning' }),
      postAlert(b, seed.deploys.webhookToken, { title: 'Held on B', level: 'info' }),
      postAlert(a, seed.general.webhookToken, { title: 'Loud on A', level: 'error' }),
    ]);
    expect(sent.map((s) => s.res.status)).toEqual([201, 201, 201]);
    await sink.waitFor(4); // the member's three, the owner's error
    for (const w of workers) await w.whenIdle();
    expect(sink.to('owner@acme.test').map((m) => m.subject)).toEqual(['[ERROR] #general — Loud on A']);
    expect(await a.query('SELECT count(*)::int AS n FROM quiet_digests')).toEqual([{ n: 1 }]);
    expect(await a.query('SELECT count(*)::int AS n FROM quiet_holds')).toEqual([{ n: 2 }]);

    clock.set(WINDOW_END);
    for (const w of workers) w.wake();
    await sink.waitFor(5);
    for (const w of workers) await w.whenIdle();
    for (const w of workers) w.wake();
    for (const w of workers) await w.whenIdle();
    const digests = sink.to('owner@acme.test').filter((m) => m.subject.startsWith('[Quiet hours]'));
    expect(digests).toHaveLength(1);
    expect(digests[0]!.subject).toBe('[Quiet hours] 2 alerts while you were away (22:00–07:00 Europe/Berlin)');
    expect(digests[0]!.text).toContain('Held on A');
    expect(digests[0]!.text).toContain('Held on B');
    expect(await a.query('SELECT state FROM quiet_digests')).toEqual([{ state: 'sent' }]);
  });
});
