import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { storageFailureOf } from '../../src/ops/storage-health.js';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
import { bodyOf } from '../helpers/bodies.js';
import { describePg } from '../helpers/pg.js';

/**
 * A full disk on the database server (PostgreSQL's disk_full, SQLSTATE 53100) is answered as a
 * full SQLite file is (disk-full.test.ts): a 503 storage-unavailable with Retry-After, nothing
 * stored, /healthz degraded until a write succeeds again. /readyz warns instead of failing: every
 * node shares that server. The failure is raised by a trigger on the alerts table, with the
 * SQLSTATE the server raises when it cannot extend a file.
 */
let h: Harness | undefined;
let server: Awaited<ReturnType<typeof listen>> | undefined;
afterEach(async () => {
  await server?.close();
  await h?.close();
  server = h = undefined;
});

describePg('database server disk full (PostgreSQL) through real HTTP', () => {
  it('refuses with 503 storage-unavailable + Retry-After, stores nothing, degrades /healthz, warns on /readyz, and recovers with the first write that succeeds', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug', base: undefined }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
    h = await startHarness({ engine: 'postgres', overrides: { logger } });
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    const post = (title: string) =>
      fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
    const stored = async (title: string) => (await h!.query<{ n: number }>('SELECT count(*) AS n FROM alerts WHERE title = ?', [title]))[0]!.n;

    expect((await post('before')).status).toBe(201);
    await h.exec(
      `CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device' USING ERRCODE = 'disk_full'; END $$`,
    );
    await h.exec('CREATE TRIGGER full_disk BEFORE INSERT ON alerts FOR EACH ROW EXECUTE FUNCTION full_disk()');

    const refused = await Promise.all(['full 1', 'full 2', 'full 3'].map(post));
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect(await bodyOf.sentProblem(res)).toMatchObject({
        type: 'http://alertbridge.test/problems/storage-unavailable',
        status: 503,
        detail: "nothing was stored: the database server's disk is full; retry later",
        requestId: res.headers.get('x-request-id'),
      });
    }
    for (const title of ['full 1', 'full 2', 'full 3']) expect(await stored(title)).toBe(0);
    const health = await fetch(`${server.url}/healthz`);
    expect(await bodyOf.health(health)).toEqual({ status: 'degraded', reasons: ["storage: the database server's disk is full"] });
    // Every node shares the server: readiness warns (taking this node out would help nobody) and does not clear the failure.
    for (let i = 0; i < 2; i++) {
      const readyz = await fetch(`${server.url}/readyz`);
      expect(readyz.status).toBe(200);
      expect((await bodyOf.readiness(readyz)).checks.storage).toMatchObject({ status: 'warn', reason: "the database server's disk is full" });
    }
    expect((await post('still full')).status).toBe(503);
    expect(await stored('still full')).toBe(0);
    // One error line when storage went away, and none for an unhandled error.
    expect(lines.filter((l) => l.includes('storage unavailable')).length).toBe(1);
    expect(lines.filter((l) => l.includes('unhandled error'))).toEqual([]);

    await h.exec('DROP TRIGGER full_disk ON alerts');
    expect((await post('after')).status).toBe(201);
    expect(await stored('after')).toBe(1);
    expect(await bodyOf.health(await fetch(`${server.url}/healthz`))).toEqual({ status: 'ok' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it("classifies PostgreSQL's disk_full, io_error and read-only SQLSTATEs, and not a constraint violation", () => {
    const pgError = (code: string) => Object.assign(new Error('server said no'), { code, severity: 'ERROR' });
    expect(storageFailureOf(pgError('53100'))).toEqual({ kind: 'full', reason: "the database server's disk is full", shared: true });
    expect(storageFailureOf(pgError('58030'))).toEqual({ kind: 'io', reason: 'database server I/O error', shared: true });
    expect(storageFailureOf(new Error('batch failed', { cause: pgError('25006') }))).toEqual({ kind: 'io', reason: 'the database server is read-only', shared: true });
    expect(storageFailureOf(pgError('23505'))).toBeNull();
  });
});
