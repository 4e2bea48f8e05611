import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, listen, seedWorkspace } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('live stream at shutdown', () => {
  it('an open stream gets `shutdown` as its last event; one opened during the drain gets only that, and both end', async () => {
    const h = await startHarness();
    cleanup.push(() => h.close());
    const seed = await seedWorkspace(h.services);
    const server = await listen(h.app.fetch);
    cleanup.push(() => server.close());

    const open = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
    cleanup.push(() => open.close());
    await open.until((c) => c.retry !== undefined, 'stream open');
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'before' } })).status).toBe(201);
    await open.until((c) => c.ofType('alert.created').length === 1, 'the alert event');

    h.services.live.closeAll('server shutting down');
    await open.until((c) => c.ended, 'stream end');
    expect(open.events.map((e) => e.event)).toEqual(['alert.created', 'shutdown']);
    expect(JSON.parse(open.events[1]!.data)).toEqual({ reason: 'server shutting down', retryMs: 3000 });

    const late = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
    cleanup.push(() => late.close());
    expect(late.status).toBe(200);
    await late.until((c) => c.ended, 'late stream end');
    expect(late.events.map((e) => e.event)).toEqual(['shutdown']);
    expect(h.services.live.size).toBe(0);
  });
});
