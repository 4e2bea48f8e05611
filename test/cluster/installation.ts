import fs from 'node:fs';
import { afterEach, expect } from 'vitest';
import { startHarness, postAlert, seedWorkspace, tempDir, type Harness } from '../helpers/harness.js';

/**
 * A small but varied installation, made through the real service: alerts of several kinds (text
 * that sorts differently under a locale collation than byte-wise, emoji, a workflow run, an
 * Idempotency-Key answer), read state (an exception and a watermark), a revoked token.
 */
export async function makeInstallation(dir: string) {
  const h = await startHarness({ engine: 'sqlite', dir });
  const seed = await seedWorkspace(h.services);
  const hook = seed.general.webhookToken;
  for (const title of ['Zebra deploy', 'éclair build ✅', 'apple release 🚀', 'Ärger im Cluster']) {
    expect((await postAlert(h, hook, { title, level: 'warning', message: `about ${title}`, fields: [{ label: 'env', value: 'prod' }] })).res.status).toBe(201);
  }
  expect((await postAlert(h, hook, { title: 'once' }, { 'Idempotency-Key': 'deploy-4242' })).res.status).toBe(201);
  expect((await postAlert(h, seed.deploys.webhookToken, { title: 'Deploy api', workflow: { runId: 'run-1', state: 'running', steps: [{ name: 'build', state: 'running' }] } })).res.status).toBe(201);
  const first = await postAlert(h, seed.deploys.webhookToken, { title: 'Deploy web' });
  expect((await h.call('PATCH', `/api/alerts/${first.body.alertId}`, { token: seed.ownerToken, json: { isRead: true } })).status).toBe(200);
  expect((await h.call('POST', '/api/alerts/mark-all-read', { token: seed.memberToken, json: { channelId: seed.general.id } })).status).toBeLessThan(300);
  const revoked = await h.services.accounts.createToken(seed.ws.id, seed.owner.id, 'old laptop');
  await h.services.accounts.revokeToken(revoked.id);
  return { h, seed, revokedToken: revoked.token };
}

/** What the owner and the member see through the read API: channels with unread counts, alerts with read state. */
export async function whatUsersSee(h: Harness, tokens: string[]) {
  const seen: unknown[] = [];
  for (const token of tokens) {
    const channels = await h.call('GET', '/api/channels', { token });
    expect(channels.status).toBe(200);
    const list: { slug: string }[] = await channels.json();
    seen.push(list);
    for (const c of list) {
      const alerts = await h.call('GET', `/api/channels/${c.slug}/alerts?limit=100`, { token });
      expect(alerts.status).toBe(200);
      seen.push(await alerts.json());
    }
  }
  return seen;
}

/** Clean-up after each test of a moving-an-installation file: temp dirs removed, services closed, in reverse order. */
export function installationCleanup() {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });
  return {
    cleanup,
    dir(): string {
      const d = tempDir();
      cleanup.push(() => fs.rmSync(d, { recursive: true, force: true }));
      return d;
    },
    track(h: Harness): Harness {
      cleanup.push(() => h.services.close());
      return h;
    },
  };
}
