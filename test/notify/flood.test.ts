import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { FLOOD_LIMIT, FLOOD_WINDOW_MS } from '../../src/notify/outbox-worker.js';
import { notifyHarness, rows, type NotifyHarness } from './setup.js';

const OWNER = 'owner@acme.test';
const MEMBER = 'member@acme.test';

let t: NotifyHarness | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('flood guard', () => {
  it(`past ${FLOOD_LIMIT} e-mails per recipient per channel per minute, the rest are folded into one digest sent when the window closes`, async () => {
    const clock = new ManualClock();
    t = await notifyHarness({ clock });
    const { seed, sink, notifier, h } = t;
    for (let i = 1; i <= 12; i++) {
      await t.post(seed.general.webhookToken, { title: `Burst ${i}`, level: i % 2 ? 'error' : 'warning', message: `detail ${i}` });
      clock.advance(1_000);
    }
    await sink.waitFor(2 * FLOOD_LIMIT);
    await notifier.whenIdle();
    for (const who of [OWNER, MEMBER]) {
      expect(sink.to(who).map((m) => m.subject)).toEqual([1, 2, 3, 4, 5].map((i) => `[${i % 2 ? 'ERROR' : 'WARNING'}] #general — Burst ${i}`));
    }
    // Another channel has its own window.
    await t.post(seed.deploys.webhookToken, { title: 'Elsewhere' });
    await sink.waitFor(2 * FLOOD_LIMIT + 2);
    await notifier.whenIdle();
    expect(await rows(h, "SELECT count(*) AS n FROM notification_deliveries WHERE state = 'folded'")).toEqual([{ n: 14 }]);

    // The window closes: one digest each, listing the 7 folded alerts.
    clock.advance(FLOOD_WINDOW_MS);
    notifier.wake();
    await sink.waitFor(2 * FLOOD_LIMIT + 4);
    await notifier.whenIdle();
    for (const who of [OWNER, MEMBER]) {
      const mails = sink.to(who);
      expect(mails).toHaveLength(FLOOD_LIMIT + 2);
      const digest = mails.find((m) => m.subject.startsWith('[Digest]'))!;
      expect(digest.subject).toMatch(/^\[Digest\] #general — 7 more alerts \(\d\d:\d\d–\d\d:\d\d UTC\)$/);
      for (let i = 6; i <= 12; i++) {
        expect(digest.text).toContain(`Burst ${i}`);
        expect(digest.html).toContain(`Burst ${i}`);
      }
      expect(digest.text).not.toMatch(/Burst [1-5]\b/);
      expect(digest.text).toContain('detail 12');
    }
    expect((await rows(h, 'SELECT state FROM notification_digests')).map((r) => r.state)).toEqual(['sent', 'sent']);

    // After the window, mail flows individually again.
    await t.post(seed.general.webhookToken, { title: 'Calm again' });
    await sink.waitFor(2 * FLOOD_LIMIT + 6);
    expect(sink.messages.slice(-2).map((m) => m.subject)).toEqual(['[INFO] #general — Calm again', '[INFO] #general — Calm again']);
  });
});
