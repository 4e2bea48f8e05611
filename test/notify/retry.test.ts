import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { backoffDelay, DEFAULT_RETRY } from '../../src/lib/backoff.js';
import { notifyHarness, rows, type NotifyHarness } from './setup.js';
import { eventually } from '../helpers/poll.js';

let t: NotifyHarness | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Delivery {
  userId: string;
  state: string;
  attempts: number;
  lastError: string | null;
  messageId: string | null;
}
const deliveries = (t: NotifyHarness) =>
  rows<Delivery>(t.h, 'SELECT user_id AS "userId", state, attempts, last_error AS "lastError", message_id AS "messageId" FROM notification_deliveries ORDER BY user_id');

describe('retries', () => {
  it('an SMTP server that refuses (451, then 421) and then accepts gets every mail through', async () => {
    t = await notifyHarness();
    t.sink.rejectNext(2, 451, 'Greylisted, try again later');
    await t.post(t.seed.general.webhookToken, { title: 'Retry me' });
    await t.sink.waitFor(2);
    await t.notifier.whenIdle();
    expect(t.sink.attempts).toBe(4);
    expect(await deliveries(t)).toHaveLength(2);
    for (const d of await deliveries(t)) expect(d).toMatchObject({ state: 'sent', attempts: 2, lastError: null, messageId: expect.stringMatching(/^<n\d+\.usr_\w+@alertbridge\.test>$/) });

    t.sink.rejectNext(1, 421, 'Service shutting down');
    await t.post(t.seed.deploys.webhookToken, { title: 'And again' });
    await t.sink.waitFor(4);
    await t.notifier.whenIdle();
    expect(t.sink.messages.map((m) => m.subject).filter((s) => s.includes('And again'))).toHaveLength(2);
  });

  it('backs off on the injected clock and gives up after the last attempt, recording why', async () => {
    const clock = new ManualClock();
    t = await notifyHarness({ clock, notifier: { retry: { maxAttempts: 3, baseDelayMs: 10_000, maxDelayMs: 60_000 }, random: () => 1 } });
    t.sink.rejectNext(1_000, 451, 'Mailbox busy');
    await t.post(t.seed.general.webhookToken, { title: 'Never arrives' });
    await eventually(async () => {
      const ds = await deliveries(t!);
      return ds.length === 2 && ds.every((d) => d.attempts === 1 && d.state === 'pending');
    }, 'first failed attempts');
    const next = (await rows<{ at: number }>(t.h, 'SELECT next_attempt_at AS at FROM notification_deliveries')).map((r) => r.at - clock.now());
    expect(next).toEqual([10_000, 10_000]); // random() = 1 → the full first delay

    clock.advance(9_999);
    t.notifier.wake();
    await t.notifier.whenIdle();
    expect(t.sink.attempts).toBe(2); // not due yet

    clock.advance(1);
    t.notifier.wake();
    await eventually(async () => (await deliveries(t!)).every((d) => d.attempts === 2 && d.state === 'pending'), 'second attempts');
    clock.advance(20_000);
    t.notifier.wake();
    await eventually(async () => (await deliveries(t!)).every((d) => d.state === 'failed'), 'giving up');
    for (const d of await deliveries(t)) {
      expect(d.attempts).toBe(3);
      expect(d.lastError).toMatch(/^gave up after 3 attempts: .*451.*Mailbox busy/);
    }
    expect(t.sink.messages).toHaveLength(0);
    expect(t.sink.attempts).toBe(6);
  });

  it('a retry that falls due while a pass is running is not left for the 30 s safety poll (slow machine)', async () => {
    // Every reading of this clock moves it 1 ms: time always passes inside a pass, as on a loaded machine.
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => ++now };
    t = await notifyHarness({ clock, notifier: { retry: { maxAttempts: 8, baseDelayMs: 4, maxDelayMs: 4 }, random: () => 1, concurrency: 1 } });
    t.sink.rejectNext(3, 451, 'Greylisted');
    await t.post(t.seed.secret.webhookToken, { title: 'Slow machine' });
    await t.sink.waitFor(1, 4_000);
  });

  it('a permanent refusal (550) is not retried', async () => {
    t = await notifyHarness();
    t.sink.rejectNext(1, 550, 'No such user');
    await t.post(t.seed.secret.webhookToken, { title: 'Bounced' });
    await eventually(async () => (await deliveries(t!)).some((d) => d.state === 'failed'), 'the failure');
    await t.notifier.whenIdle();
    expect(await deliveries(t)).toMatchObject([{ state: 'failed', attempts: 1, lastError: expect.stringMatching(/^permanent failure: .*550.*No such user/) }]);
    expect(t.sink.attempts).toBe(1);
  });
});

describe('backoff', () => {
  it('doubles from the base delay with equal jitter, capped', () => {
    const policy = DEFAULT_RETRY;
    expect(policy).toEqual({ maxAttempts: 8, baseDelayMs: 10_000, maxDelayMs: 900_000 });
    expect([1, 2, 3, 7].map((a) => backoffDelay(policy, a, () => 1))).toEqual([10_000, 20_000, 40_000, 640_000]);
    expect([1, 2, 3, 7].map((a) => backoffDelay(policy, a, () => 0))).toEqual([5_000, 10_000, 20_000, 320_000]);
    expect(backoffDelay(policy, 20, () => 1)).toBe(900_000);
  });
});
