import { afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { createEngineHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from '../notify/setup.js';

const HOUR = 60 * 60 * 1000;

/**
 * The send lease's expiry at a running node's hourly prune, on PostgreSQL: a row another node
 * claimed and left `sending` when it died is recorded failed by a node that never restarts
 * (test/notify/recover-each-prune.test.ts shows the same rule on the SQLite rows, and
 * test/cluster/three-nodes.test.ts the recovery at a node's start).
 */
describePg('the outbox lease at the hourly prune (PostgreSQL)', () => {
  let h: Harness | undefined;
  let sink: SmtpSink | undefined;
  let notifier: Notifier | undefined;
  afterEach(async () => {
    await notifier?.stop();
    await sink?.close();
    await h?.close();
  });

  it('a delivery left sending by a dead node is recorded failed at the next prune after its lease, never resent', async () => {
    const clock = new ManualClock(Date.now());
    sink = await SmtpSink.start();
    h = await createEngineHarness('postgres', { env: { SMTP_URL: sink.url, MAIL_FROM }, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    // As src/runtime.ts starts it on this engine.
    notifier = startNotifier(h.services, { retry: FAST_RETRY, recoverEachPrune: h.services.engine === 'postgres' });
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'stranded' } })).status).toBe(201);
    await eventually(() => sink!.messages.length >= 2, 'the e-mails sent');
    await notifier.whenIdle();

    // As if another node had claimed the owner's delivery and died before recording the outcome.
    await h.query(`UPDATE notification_deliveries SET state = 'sending' WHERE user_id = ?`, [seed.owner.id]);
    clock.advance(HOUR + 1);
    notifier.wake();
    await notifier.whenIdle();

    const [row] = await h.query<{ state: string; last_error: string | null }>('SELECT state, last_error FROM notification_deliveries WHERE user_id = ?', [seed.owner.id]);
    expect(row?.state).toBe('failed');
    expect(row?.last_error).toMatch(/interrupted/);
    expect(sink.messages).toHaveLength(2);
  });
});
