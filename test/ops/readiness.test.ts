import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import { bodyOf } from '../helpers/bodies.js';
import { capturedLogger } from './log-capture.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function harness(env: Record<string, string> = {}, clock?: ManualClock): Promise<Harness> {
  const h = await startHarness({ env, overrides: clock ? { clock } : {} });
  cleanup.push(() => h.close());
  return h;
}

async function get<T>(h: Harness, path: string, read: (res: Response) => Promise<T>) {
  const res = await h.call('GET', path);
  return { status: res.status, body: await read(res) };
}
const health = (h: Harness) => get(h, '/healthz', bodyOf.health);
const readiness = (h: Harness) => get(h, '/readyz', bodyOf.readiness);

describe('/healthz and /readyz', () => {
  it('a fresh service: /healthz ok, /readyz 200 with each check and its numbers', async () => {
    const h = await harness();
    expect(await health(h)).toEqual({ status: 200, body: { status: 'ok' } });
    const r = await readiness(h);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ready',
      checks: {
        database: { status: 'ok' },
        disk: { status: 'ok', freeMb: expect.any(Number), reserveMb: 100 },
        storage: { status: 'ok' },
        outbox: { status: 'ok', pendingJobs: 0, staleJobs: 0, oldestDueSeconds: 0 },
      },
    });
    expect(r.body.checks.disk?.freeMb).toBeGreaterThanOrEqual(100);
  });

  it('an outbox backlog older than 5 minutes is a warning, not a reason to stop traffic', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const h = await harness({}, clock);
    const seed = await seedWorkspace(h.services);
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);
    clock.advance(10 * 60_000);
    const r = await readiness(h);
    expect(r.status).toBe(200);
    expect(r.body.checks.outbox).toEqual({ status: 'warn', pendingJobs: 1, staleJobs: 1, oldestDueSeconds: 600 });
  });

  it('while shutting down /readyz is 503 (the load balancer stops sending), /healthz stays 200', async () => {
    const h = await harness();
    h.services.ops.draining = true;
    const r = await readiness(h);
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('not-ready');
    expect(r.body.checks.shutdown).toEqual({ status: 'fail', reason: 'shutting down' });
    expect((await health(h)).status).toBe(200);
  });

  it('Discord configured but the bridge not running: reported as a warning', async () => {
    const h = await harness({ DISCORD_TOKEN: 'x'.repeat(30) });
    const r = await readiness(h);
    expect(r.status).toBe(200);
    expect(r.body.checks.discord).toEqual({ status: 'warn', gateway: 'not started', reason: 'the bridge did not start (see the log)' });
  });
});

describe('no secret in logs', () => {
  it('/healthz, /readyz and /metrics (refused and allowed scrapes) log nothing of METRICS_TOKEN, at trace level', async () => {
    const token = 'mt_secret_fedcba9876543210fedcba98';
    const log = capturedLogger('trace');
    const h = await startHarness({ env: { METRICS: '1', METRICS_TOKEN: token }, overrides: { logger: log.logger } });
    cleanup.push(() => h.close());
    expect((await h.call('GET', '/healthz', { token })).status).toBe(200);
    expect((await h.call('GET', '/readyz', { token })).status).toBe(200);
    expect((await h.call('GET', '/metrics', { token })).status).toBe(200);
    expect((await h.call('GET', '/metrics', { token: token + 'x' })).status).toBe(401);
    expect((await h.call('GET', '/metrics', { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
    expect((await h.call('GET', `/metrics?token=${token}`)).status).toBe(401);
    expect(log.lines.length).toBeGreaterThanOrEqual(6); // one access line per request at least
    for (const line of log.lines) expect(line).not.toContain(token);
  });
});
