import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertbridgeApi, AlertbridgeError, sendAlert } from '../../packages/client/src/index.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';

/**
 * AlertbridgeApi against the real read API over loopback (both engines: vitest.config.ts ON_POSTGRES):
 * the page iterator walks 250 alerts newest first with no gap or repeat, and every operation returns
 * the typed shapes (read state, lifecycle, history, deliveries, heartbeats, search, errors).
 */
describe('AlertbridgeApi', () => {
  let h: Harness;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let owner: AlertbridgeApi;
  let member: AlertbridgeApi;
  const posted: string[] = [];

  beforeAll(async () => {
    h = await startHarness({ serve: true });
    seed = await seedWorkspace(h.services);
    owner = new AlertbridgeApi({ baseUrl: `${h.base}/`, token: seed.ownerToken });
    member = new AlertbridgeApi({ baseUrl: h.base, token: seed.memberToken });
    const hook = `${h.base}/api/webhook/${seed.deploys.webhookToken}`;
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => sendAlert(hook, { title: `deploy ${batch * 25 + i}`, level: (batch * 25 + i) % 5 === 0 ? 'error' : 'info' })),
      );
      posted.push(...answers.map((a) => a.alertId));
    }
  }, 120_000);
  afterAll(async () => h?.close());

  it('walks 250 alerts page by page, newest first, each once', async () => {
    const seen: string[] = [];
    for await (const a of owner.alerts('deploys', { limit: 37 })) seen.push(a.id);
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    // Ids sort in creation order: newest first is descending.
    expect(seen).toEqual([...posted].sort().reverse());
    // order: 'asc' walks the same alerts oldest first; a thread filter that matches nothing is an empty walk.
    const oldestFirst: string[] = [];
    for await (const a of owner.alerts('deploys', { order: 'asc', limit: 37 })) oldestFirst.push(a.id);
    expect(oldestFirst).toEqual([...posted].sort());
    const inThread: string[] = [];
    for await (const a of owner.alerts('deploys', { thread: '99999999999999999' })) inThread.push(a.id);
    expect(inThread).toEqual([]);
  });

  it('passes filters to every page and stops early on break', async () => {
    const errors: string[] = [];
    for await (const a of owner.alerts('deploys', { level: 'error', limit: 20 })) {
      expect('level' in a && a.level).toBe('ERROR');
      errors.push(a.id);
    }
    expect(errors).toHaveLength(50);
    let n = 0;
    for await (const _ of owner.alerts('deploys', { limit: 10 })) if (++n === 15) break;
    expect(n).toBe(15);
    const hits: string[] = [];
    for await (const a of owner.search({ q: 'deploy', channel: 'deploys', limit: 100 })) hits.push(a.id);
    expect(hits).toHaveLength(250);
  });

  it('lists only the channels the token can see, with unread counts', async () => {
    const names = (await member.channels()).map((c) => c.slug).sort();
    expect(names).toEqual(['deploys', 'general']);
    expect((await owner.channels()).map((c) => c.slug)).toContain('security');
    expect((await member.channels()).find((c) => c.slug === 'deploys')?._count.alerts).toBe(250);
  });

  it('reads one alert, marks it read, and walks its lifecycle with history', async () => {
    const id = posted[0]!;
    const alert = await member.alert(id);
    expect(alert).toMatchObject({ id, channelSlug: 'deploys', isRead: false, status: 'open' });
    expect((await member.markRead(id)).isRead).toBe(true);
    expect((await member.channels()).find((c) => c.slug === 'deploys')?._count.alerts).toBe(249);
    expect((await member.acknowledge(id)).status).toBe('acknowledged');
    expect((await member.resolve(id)).status).toBe('resolved');
    expect((await member.reopen(id)).status).toBe('open');
    expect((await member.history(id)).length).toBeGreaterThanOrEqual(3);
    expect(Array.isArray(await member.deliveries(id))).toBe(true);
    expect(await member.heartbeats()).toEqual([]);
    expect((await member.markAllRead('deploys')).channelIds).toEqual([seed.deploys.id]);
    expect((await member.channels()).find((c) => c.slug === 'deploys')?._count.alerts).toBe(0);
  });

  it('throws 404 and 401 as typed errors', async () => {
    const hidden = await sendAlert(`${h.base}/api/webhook/${seed.secret.webhookToken}`, { title: 'private' });
    const notFound = await member.alert(hidden.alertId).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(AlertbridgeError);
    expect(notFound).toMatchObject({ status: 404, problem: 'not-found' });
    const bad = new AlertbridgeApi({ baseUrl: h.base, token: 'ab_' + '0'.repeat(48) });
    const unauthorized = await bad.channels().catch((e: unknown) => e);
    expect(unauthorized).toMatchObject({ status: 401, title: 'Unauthorized', problem: 'unknown_token' });
    expect((unauthorized as AlertbridgeError).detail).toBeTruthy();
  });
});
