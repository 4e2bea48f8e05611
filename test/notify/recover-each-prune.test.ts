import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { eventually } from '../helpers/poll.js';
import { notifyHarness, rows, type NotifyHarness } from './setup.js';

const HOUR = 60 * 60 * 1000;
let n: NotifyHarness | undefined;
afterEach(async () => {
  await n?.close();
  n = undefined;
});

/**
 * A row left `sending` by a node that died mid-send: on PostgreSQL no restart of that node is
 * coming, so every node records such rows at its hourly prune (`recoverEachPrune`, set by
 * src/runtime.ts from the engine); without it they are recorded only when a worker starts.
 */
async function strandedDelivery(recoverEachPrune: boolean) {
  const clock = new ManualClock(Date.now());
  n = await notifyHarness({ clock, notifier: { recoverEachPrune } });
  await n.post(n.seed.general.webhookToken, { title: 'stranded' });
  await eventually(() => n!.sink.messages.length >= 2, 'the e-mails sent');
  await n.notifier.whenIdle();
  // As if another node had claimed this one and died before recording the outcome.
  expect(await n.h.exec(`UPDATE notification_deliveries SET state = 'sending' WHERE user_id = ?`, [n.seed.owner.id])).toBe(1);
  clock.advance(HOUR + 1);
  n.notifier.wake();
  await n.notifier.whenIdle();
  return (await rows<{ state: string; lastError: string | null }>(n.h, 'SELECT state, last_error AS "lastError" FROM notification_deliveries WHERE user_id = ?', n.seed.owner.id))[0]!;
}

describe('rows left sending by another node', () => {
  it('with recoverEachPrune, the next prune pass records them as failed, never resent', async () => {
    const row = await strandedDelivery(true);
    expect(row.state).toBe('failed');
    expect(row.lastError).toMatch(/interrupted/);
    expect(n!.sink.messages).toHaveLength(2);
  });

  it('without it (SQLite: the one process is the one that restarts) they are left to the start-up recovery', async () => {
    const row = await strandedDelivery(false);
    expect(row.state).toBe('sending');
  });
});
