import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestAcross } from '../../src/dashboard/feed/feed-query.js';
import { seedWorkspace } from '../helpers/harness.js';
import { startDashboard, type DashHarness } from './helpers.js';

/**
 * "All channels" merges channels by asking each for a share and topping up
 * only where needed: on real rows, it must give exactly what reading every
 * channel's full page and merging would, however skewed the channels are.
 */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let channelIds: string[];

beforeAll(async () => {
  h = await startDashboard({ serve: false });
  seed = await seedWorkspace(h.services);
  const extra = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Quiet', icon: '🤫' });
  const tokens = [seed.general.webhookToken, seed.deploys.webhookToken, seed.secret.webhookToken, extra.webhookToken];
  channelIds = [seed.general.id, seed.deploys.id, seed.secret.id, extra.id];
  // Skewed: long runs in one channel, a burst in another, one alert in the quiet one.
  const order = [...Array(40).fill(0), ...Array(15).fill(1), 3, ...Array(20).fill(0), ...Array.from({ length: 30 }, (_, i) => i % 3), ...Array(10).fill(2)];
  for (const [i, ch] of order.entries()) {
    const res = await h.app.request(`/api/webhook/${tokens[ch]!}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `alert ${i}`, level: i % 4 === 0 ? 'ERROR' : 'INFO' }) });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await h?.close();
});

async function bruteForce(level: 'ERROR' | undefined, cursor: string | undefined, want: number) {
  const pages = await Promise.all(channelIds.map((channelId) => h.services.store.reads.page({ channelId, level, cursor, limit: want })));
  return pages
    .flat()
    .sort((a, b) => (a.id < b.id ? 1 : -1))
    .slice(0, want)
    .map((r) => r.id);
}

describe('newestAcross', () => {
  it('equals merging every channel’s full page, for every cursor, size and level', async () => {
    const all = await bruteForce(undefined, undefined, 1000);
    expect(all).toHaveLength(116);
    const cursors = [undefined, ...all.filter((_, i) => i % 7 === 0)];
    for (const want of [1, 2, 5, 26, 51]) {
      for (const cursor of cursors) {
        for (const level of [undefined, 'ERROR'] as const) {
          const got = (await newestAcross(h.services.store.reads, channelIds, level, cursor, want)).map((r) => r.id);
          expect(got).toEqual(await bruteForce(level, cursor, want));
        }
      }
    }
  });
});
