import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM, rows } from '../notify/setup.js';

const MIN = 60_000;

/**
 * A heartbeat's alert notifies like any alert (issue 28): one e-mail per recipient when the check
 * goes down, one when it is up again, none for repeated failures in between, and none while a
 * silence holds. Real SMTP on loopback, the injected clock, testEngine().
 */
let env: { h: Harness; sink: SmtpSink; notifier: Notifier } | undefined;
afterEach(async () => {
  await env?.notifier.stop();
  await env?.sink.close();
  await env?.h.close();
  env = undefined;
});

async function start() {
  const sink = await SmtpSink.start();
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 8, 0));
  const h = await startHarness({ serve: true, env: { SMTP_URL: sink.url, MAIL_FROM }, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const notifier = startNotifier(h.services, { retry: FAST_RETRY });
  env = { h, sink, notifier };
  const check = await h.services.heartbeats.checks.create({ channelId: seed.general.id, name: 'Nightly backup', period: '1h', grace: '10m' });
  const ping = async (suffix = '') => expect((await fetch(`${h.base}/ping/${check.pingUuid}${suffix}`)).status).toBe(200);
  return { h, sink, notifier, clock, seed, check, ping };
}

describe('heartbeat alerts notify once', () => {
  it('down: one e-mail each; repeated failures: none; up again: one each', async () => {
    const e = await start();
    await e.ping();
    e.clock.advance(71 * MIN);
    await e.h.services.heartbeats.timer.pass();
    await e.sink.waitFor(2);
    await e.notifier.whenIdle();
    await e.ping('/fail');
    await e.ping('/1');
    await e.notifier.whenIdle();
    expect(e.sink.messages.map((m) => m.subject)).toEqual(['[ERROR] #general — Nightly backup is down', '[ERROR] #general — Nightly backup is down']);
    await e.ping();
    await e.sink.waitFor(4);
    await e.notifier.whenIdle();
    expect(e.sink.messages.slice(2).map((m) => m.subject)).toEqual(['[SUCCESS] #general — Nightly backup is up', '[SUCCESS] #general — Nightly backup is up']);
  });

  it('a silence on the channel mutes the check going down', async () => {
    const e = await start();
    const silence = await e.h.services.silences.create({ workspaceId: e.seed.ws.id, actor: 'owner@acme.test', channel: e.seed.general.id, for: '2h', comment: 'backup host moved' });
    await e.ping('/fail');
    await e.notifier.whenIdle();
    expect(e.sink.messages).toEqual([]);
    expect(await rows(e.h, 'SELECT silenced_by AS s FROM alerts WHERE channel_id = ?', e.seed.general.id)).toEqual([{ s: silence.id }]);
  });
});
