import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';
import { bodyOf } from '../helpers/bodies.js';
import { eventually } from '../helpers/poll.js';

let h: Harness;
let server: Awaited<ReturnType<typeof listen>>;
const clients: SseClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  await h?.close();
});

describe('GET /api/stream limits', () => {
  it('caps open streams per token with a 429 problem, and frees the slot when one closes', async () => {
    h = await startHarness({ overrides: { live: { maxPerToken: 2 } } });
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    for (let i = 0; i < 2; i++) {
      const c = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
      clients.push(c);
      expect(c.status).toBe(200);
    }
    const third = await fetch(`${server.url}/api/stream`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
    expect(third.status).toBe(429);
    expect(third.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await bodyOf.problem(third)).detail).toMatch(/at most 2/);
    // Another token is not affected.
    const other = await SseClient.open(`${server.url}/api/stream`, { token: seed.memberToken });
    clients.push(other);
    expect(other.status).toBe(200);
    // Closing one frees a slot.
    clients.shift()!.close();
    await eventually(() => h.services.live.size <= 2, 'the closed stream to free its slot');
    const again = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
    clients.push(again);
    expect(again.status).toBe(200);
  });
});
