import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { createEngineHarness, type Harness, type HarnessNode, postAlert, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';

/**
 * Issue 27: every PostgreSQL node runs the route worker, and a claim takes its row FOR UPDATE SKIP
 * LOCKED with a lease, so two nodes never both send a delivery. Two nodes with their own services
 * and workers, one database, one key; alerts posted to both (each node's worker is woken by its
 * own writes and polls for the other's); each (event, route) reaches the receiver exactly once.
 */
describePg('route deliveries on two PostgreSQL nodes', () => {
  let a: Harness;
  let b: HarnessNode;
  const workers: RouteWorker[] = [];
  let receiver: Awaited<ReturnType<typeof startFakeReceiver>>;
  beforeAll(async () => {
    // One SECRETS_KEY on every node (docs/operations.md), and receivers on loopback.
    const env = { ROUTES_ALLOW_PRIVATE: '1', SECRETS_KEY: randomBytes(32).toString('hex') };
    a = await createEngineHarness('postgres', { env });
    b = await a.node({ env });
    receiver = await startFakeReceiver(() => ({ status: 200, body: '{}' }));
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await receiver?.close();
    await a?.close();
  });

  it('sends each delivery once, whichever node claims it', { timeout: 120_000 }, async () => {
    const seed = await seedWorkspace(a.services);
    const routes = a.services.routes.routes;
    for (const path of ['/one', '/two', '/three']) await routes.create(seed.general.id, 'webhook', { url: `${receiver.url}${path}` }, { ratePerMinute: 600, events: ['alert.opened', 'alert.resolved'] });
    workers.push(startRouteWorker(a.services), startRouteWorker(b.services));
    const ALERTS = 20;
    for (let i = 0; i < ALERTS; i++) {
      const node = i % 2 === 0 ? a : b;
      const { res } = await postAlert(node, seed.general.webhookToken, { title: `alert ${i}`, dedupKey: `k${i}` });
      expect(res.status).toBe(201);
      // Half of them resolved at once: a second event of the same alert and route, kept in order.
      if (i % 2 === 1) expect((await postAlert(node, seed.general.webhookToken, { title: `alert ${i}`, dedupKey: `k${i}`, status: 'resolved' })).res.status).toBeLessThan(300);
    }
    const expected = 3 * (ALERTS + ALERTS / 2);
    await eventually(async () => {
      const rows = await a.query<{ state: string }>('SELECT state FROM route_deliveries');
      return rows.length === expected && rows.every((r) => r.state === 'sent') ? true : undefined;
    }, 'every delivery sent', { timeoutMs: 60_000 });
    const ids = receiver.received.map((q) => String(q.headers['webhook-id']));
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(expected);
    // In order per alert and route: an alert's resolve never arrives before its opening.
    for (const path of ['/one', '/two', '/three']) {
      const events = receiver.received.filter((q) => q.path === path).map((q) => `${q.json().title as string}:${q.json().event as string}`);
      for (let i = 1; i < ALERTS; i += 2) expect(events.indexOf(`alert ${i}:alert.opened`)).toBeLessThan(events.indexOf(`alert ${i}:alert.resolved`));
    }
  });
});
