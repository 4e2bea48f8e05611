import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertbridgeApi, AlertbridgeError, sendAlert } from '../../packages/client/src/index.js';
import { sendAlert as sendAlertInBrowser } from '../../packages/client/src/browser.js';
import { mp3, png } from '../media/fixtures.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { FaultyProxy } from './proxy.js';

/**
 * sendAlert against the real service over loopback (both engines: vitest.config.ts ON_POSTGRES),
 * behind a proxy that loses answers: retries reuse the call's Idempotency-Key, so a lost 201 never
 * becomes a second alert; refusals are typed errors; attachments go as multipart.
 */
describe('sendAlert', () => {
  let h: Harness;
  let proxy: FaultyProxy;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let hook: string;
  const fast = { minDelayMs: 5, maxDelayMs: 20 };

  beforeEach(async () => {
    h = await startHarness({ serve: true });
    seed = await seedWorkspace(h.services);
    proxy = await FaultyProxy.start(h.base);
    hook = `${proxy.url}/api/webhook/${seed.deploys.webhookToken}`;
  });
  afterEach(async () => {
    await proxy.close();
    await h.close();
  });

  const alertsIn = (channelId: string) => h.query<{ id: string; title: string }>(`SELECT id, title FROM alerts WHERE channel_id = '${channelId}' ORDER BY id`);

  it('retries a 503 that lost a committed answer with the same Idempotency-Key: one alert', async () => {
    proxy.faults.push({ status: 503, forward: true });
    const answer = await sendAlert(hook, { title: 'Deploy 4242 done', level: 'success' }, fast);
    const rows = await alertsIn(seed.deploys.id);
    expect(rows).toEqual([{ id: answer.alertId, title: 'Deploy 4242 done' }]);
    expect(proxy.requests).toHaveLength(2);
    const [first, second] = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(answer.destination.channel.slug).toBe('deploys');
  });

  it('waits out a 429 with Retry-After, then sends; each call has its own key', async () => {
    proxy.faults.push({ status: 429, headers: { 'retry-after': '1' } });
    const started = Date.now();
    await sendAlert(hook, { title: 'after the limit' }, fast);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await sendAlert(hook, { title: 'second call' }, fast);
    const keys = proxy.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect((await alertsIn(seed.deploys.id)).map((r) => r.title)).toEqual(['after the limit', 'second call']);
  });

  it('gives up after its bounded retries and throws the last answer', async () => {
    for (let i = 0; i < 3; i++) proxy.faults.push({ status: 502 });
    const err = await sendAlert(hook, { title: 'never' }, { ...fast, retries: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlertbridgeError);
    expect(err).toMatchObject({ status: 502, title: 'Bad Gateway' });
    expect(proxy.requests).toHaveLength(3);
    expect(await alertsIn(seed.deploys.id)).toEqual([]);
  });

  it('throws a refusal as a typed error with the problem members, without retrying it', async () => {
    const err = await sendAlert(hook, { title: '   ' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlertbridgeError);
    const e = err as AlertbridgeError;
    expect(e).toMatchObject({ status: 400, title: 'invalid payload', problem: 'invalid-payload' });
    expect(e.type).toMatch(/\/problems\/invalid-payload$/);
    expect(e.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['title'] })]));
    expect(e.requestId).toBeTruthy();
    expect(proxy.requests).toHaveLength(1);

    const unknown = await sendAlert(`${proxy.url}/api/webhook/whk_nope`, { title: 'x' }).catch((x: unknown) => x);
    expect(unknown).toMatchObject({ status: 404, problem: 'unknown-token', title: 'invalid webhook token' });
  });

  it('sends attachments from bytes, a Blob and a file path as multipart', async () => {
    const dir = fs.mkdtempSync(path.join(h.dir, 'files-'));
    const file = path.join(dir, 'alarm.mp3');
    fs.writeFileSync(file, mp3());
    const answer = await sendAlert(
      hook,
      { title: 'Nightly screenshot', fields: [{ label: 'run', value: 7 }] },
      { attachments: [{ data: new Uint8Array(png()), name: 'shot.png' }, new File([new Uint8Array(png())], 'second.png'), file] },
    );
    const api = new AlertbridgeApi({ baseUrl: h.base, token: seed.ownerToken });
    const alert = await api.alert(answer.alertId);
    if (!('fields' in alert)) throw new Error('a standard alert was expected');
    expect(alert.attachments.map((a) => [a.name, a.type, a.size])).toEqual([
      ['shot.png', 'image', png().length],
      ['second.png', 'image', png().length],
      ['alarm.mp3', 'audio', mp3().length],
    ]);
    expect(alert.fields).toEqual([{ label: 'run', value: '7', inline: false }]);
  });

  it('in the browser entry, refuses a file path before sending anything', async () => {
    await expect(sendAlertInBrowser(hook, { title: 'x' }, { attachments: ['/etc/hostname'] })).rejects.toThrow(/file path needs Node/);
    expect(proxy.requests).toEqual([]);
  });
});
