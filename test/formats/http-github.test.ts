import { describe, expect, it } from 'vitest';
import { githubSignature } from '../../src/domain/formats/github-body.js';
import { mapGithub } from '../../src/domain/formats/github.js';
import { bodyOf } from '../helpers/bodies.js';
import type { Harness as Harness } from '../helpers/harness.js';
import { fixture, servedForBlock } from './fixture.js';

/**
 * GitHub's webhook path over real HTTP with the provider's example deliveries, on one service:
 * each test reads back its own alerts or counts from the count before its deliveries.
 */
let h: Harness;
let server: { url: string } | undefined;
const serve = servedForBlock();

async function start() {
  let seed;
  ({ h, server, seed } = await serve());
  return seed;
}

const alertCount = () => h.count('alerts');

function deliver(token: string, event: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${server!.url}/api/webhook/${token}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, ...headers },
    body,
  });
}

async function readBack(alertId: string, token: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

describe('POST /api/webhook/{token}/github', () => {
  for (const [event, name] of [
    ['push', 'push'],
    ['pull_request', 'pull_request.opened'],
    ['pull_request', 'pull_request.merged'],
    ['issues', 'issues.opened'],
    ['release', 'release.published'],
  ] as const) {
    it(`${name}: one alert, read back as the mapper reads it`, async () => {
      const seed = await start();
      const body = fixture('github', name);
      const res = await deliver(seed.general.webhookToken, event, JSON.stringify(body));
      expect(res.status).toBe(200);
      const id = res.headers.get('x-alertbridge-alert-id')!;
      const cmd = mapGithub(event, body);
      if (cmd.kind !== 'alert') throw new Error(`expected an alert for ${name}`);
      const got = await readBack(id, seed.ownerToken);
      expect(got.title).toBe(cmd.payload.title);
      expect(got.level).toBe(cmd.payload.level.toUpperCase());
      expect(got.linkUrl ?? undefined).toBe(cmd.payload.linkUrl);
      expect(got.fields ?? []).toEqual(cmd.payload.fields ?? []);
    });
  }

  it('the form-encoded payload= body is read like JSON', async () => {
    const seed = await start();
    const before = await alertCount();
    const form = new URLSearchParams({ payload: JSON.stringify(fixture('github', 'issues.opened')) }).toString();
    const res = await deliver(seed.general.webhookToken, 'issues', form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
    expect(await alertCount()).toBe(before + 1);
  });

  it('ping answers 200 with no alert; an unmapped event answers {"ignored": event} and stores nothing', async () => {
    const seed = await start();
    const before = await alertCount();
    const ping = await deliver(seed.general.webhookToken, 'ping', JSON.stringify(fixture('github', 'ping')));
    expect(ping.status).toBe(200);
    const star = await deliver(seed.general.webhookToken, 'star', JSON.stringify({ action: 'created' }));
    expect(star.status).toBe(200);
    expect(await star.json()).toEqual({ ignored: 'star' });
    expect(await alertCount()).toBe(before);
  });

  it('a redelivery (same X-GitHub-Delivery) stores nothing new for 7 days (GitHub redelivers for 3); after that the key is gone', async () => {
    const seed = await start();
    const body = JSON.stringify(fixture('github', 'push'));
    const headers = { 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
    const before = await alertCount();
    const age = (ms: number) => h.exec('UPDATE idempotency_keys SET created_at = created_at - ?', [ms]);
    const a = await deliver(seed.general.webhookToken, 'push', body, headers);
    const text = await a.text();
    await age(7 * 24 * 3600 * 1000 - 60_000); // a minute short of 7 days: well past the plain webhook's 24 hours
    await h.services.maintenance();
    const b = await deliver(seed.general.webhookToken, 'push', body, headers);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotency-replayed')).toBe('true');
    expect(await b.text()).toBe(text);
    expect(await alertCount()).toBe(before + 1);
    await age(2 * 60_000);
    await h.services.maintenance();
    const c = await deliver(seed.general.webhookToken, 'push', body, headers);
    expect(c.status).toBe(200);
    expect(c.headers.get('x-alertbridge-alert-id')).not.toBe(a.headers.get('x-alertbridge-alert-id'));
    expect(await alertCount()).toBe(before + 2);
  });

  it('with a signing secret: a missing or wrong signature is a 401 problem and stores nothing; the right one is accepted', async () => {
    const seed = await start();
    const before = await alertCount();
    const secret = 'It-is-a-long-shared-secret';
    // On deploys: the other tests deliver to general, unsigned.
    await h.services.accounts.setSigningSecret(seed.deploys.id, secret);
    h.services.webhookChannels.invalidate();
    const body = JSON.stringify(fixture('github', 'issues.opened'));
    const missing = await deliver(seed.deploys.webhookToken, 'issues', body);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await missing.json()) as { type: string }).type).toMatch(/invalid-signature$/);
    const wrong = await deliver(seed.deploys.webhookToken, 'issues', body, { 'x-hub-signature-256': githubSignature(body, 'another-secret-entirely') });
    expect(wrong.status).toBe(401);
    expect(await alertCount()).toBe(before);
    const right = await deliver(seed.deploys.webhookToken, 'issues', body, { 'x-hub-signature-256': githubSignature(body, secret) });
    expect(right.status).toBe(200);
    expect(await alertCount()).toBe(before + 1);
  });

  it('workflow_run requested then completed is one alert that ends in its conclusion', async () => {
    const seed = await start();
    const requested = fixture('github', 'workflow_run.requested');
    const completed = fixture('github', 'workflow_run.completed');
    const before = await alertCount();
    const a = await deliver(seed.general.webhookToken, 'workflow_run', JSON.stringify(requested));
    const b = await deliver(seed.general.webhookToken, 'workflow_run', JSON.stringify(completed));
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('x-alertbridge-alert-id')).toBe(a.headers.get('x-alertbridge-alert-id'));
    expect(await alertCount()).toBe(before + 1);
    const cmd = mapGithub('workflow_run', completed);
    if (cmd.kind !== 'run') throw new Error('expected a run');
    const got = await readBack(b.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    expect(got.title).toBe(cmd.payload.title);
    expect(got.level).toBe({ running: 'INFO', passed: 'SUCCESS', failed: 'ERROR' }[cmd.payload.workflow.state]);
  });
});
