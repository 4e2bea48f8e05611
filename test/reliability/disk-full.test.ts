import fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { storageFailureOf } from '../../src/ops/storage-health.js';
import { bodyOf, type ProblemBody } from '../helpers/bodies.js';
import { startHarness, listen, seedWorkspace, type Harness } from '../helpers/harness.js';
import { sqliteServicesOf } from '../../src/services.js';
import { png } from '../media/fixtures.js';

let h: Harness | undefined;
let server: Awaited<ReturnType<typeof listen>> | undefined;
afterEach(async () => {
  await server?.close();
  await h?.close();
  server = h = undefined;
});

/** A harness served over real HTTP on loopback, logging into `lines`. */
async function start(env: Record<string, string> = {}) {
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug', base: undefined },
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  h = await startHarness({ engine: 'sqlite', env, overrides: { logger } });
  const seed = await seedWorkspace(h.services);
  server = await listen(h.app.fetch);
  const base = server.url;
  const post = (payload: unknown) =>
    fetch(`${base}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const get = async <T>(p: string, read: (res: Response) => Promise<T>) => {
    const res = await fetch(`${base}${p}`);
    return { status: res.status, body: await read(res) };
  };
  const health = () => get('/healthz', bodyOf.health);
  const readiness = () => get('/readyz', bodyOf.readiness);
  const count = (title: string) => sqliteServicesOf(h!.services).db.sqlite.prepare('SELECT count(*) FROM alerts WHERE title = ?').pluck().get(title) as number;
  return { base, seed, post, health, readiness, count, lines, sqlite: sqliteServicesOf(h.services).db.sqlite };
}

describe('disk full (SQLite max_page_count) through real HTTP', () => {
  it('refuses with 503 storage-unavailable + Retry-After, stores nothing, degrades /healthz, fails /readyz, and recovers when space returns', async () => {
    const t = await start();
    expect((await t.post({ title: 'before' })).status).toBe(201);
    const pages = t.sqlite.pragma('page_count', { simple: true }) as number;
    t.sqlite.pragma(`max_page_count = ${pages}`);

    // Free pages inside the file absorb a few rows; past them every write is refused.
    let refused: Response | undefined;
    let title = '';
    for (let i = 0; i < 200 && !refused; i++) {
      title = `while full ${i}`;
      const res = await t.post({ title, message: 'm'.repeat(4000) });
      if (res.status !== 201) refused = res;
      else await res.body?.cancel();
    }
    expect(refused?.status).toBe(503);
    expect(refused!.headers.get('retry-after')).toBe('30');
    expect(refused!.headers.get('content-type')).toBe('application/problem+json');
    const problem = await bodyOf.sentProblem(refused!);
    expect(problem).toMatchObject({
      type: 'http://alertbridge.test/problems/storage-unavailable',
      status: 503,
      title: 'storage unavailable',
      detail: 'nothing was stored: database or disk is full; retry later',
      requestId: refused!.headers.get('x-request-id'),
    });
    expect(t.count(title)).toBe(0);

    expect(await t.health()).toEqual({ status: 200, body: { status: 'degraded', reasons: ['storage: database or disk is full'] } });
    const notReady = await t.readiness();
    expect(notReady.status).toBe(503);
    expect(notReady.body.status).toBe('not-ready');
    expect(notReady.body.checks.storage).toMatchObject({ status: 'fail', reason: 'database or disk is full' });
    expect(notReady.body.checks.database).toMatchObject({ status: 'fail' });
    // One error line when storage went away, not one per refused request (they would fill what is left).
    expect(t.lines.filter((l) => l.includes('storage unavailable')).length).toBe(1);
    expect(t.lines.filter((l) => l.includes('unhandled error'))).toEqual([]);

    // Space returns: the next write succeeds and the service is healthy again, without a restart.
    t.sqlite.pragma('max_page_count = 1073741823');
    const again = await t.post({ title: 'after' });
    expect(again.status).toBe(201);
    expect(t.count('after')).toBe(1);
    expect(await t.health()).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await t.readiness();
    expect(ready.status).toBe(200);
    expect(ready.body.checks.storage).toEqual({ status: 'ok' });
  });

  it('/readyz itself notices that space came back, so a load balancer that stopped sending traffic resumes', async () => {
    const t = await start();
    t.sqlite.pragma(`max_page_count = ${t.sqlite.pragma('page_count', { simple: true }) as number}`);
    let status = 201;
    for (let i = 0; i < 200 && status === 201; i++) status = (await t.post({ title: `fill ${i}`, message: 'm'.repeat(4000) })).status;
    expect(status).toBe(503);
    expect((await t.readiness()).status).toBe(503);

    t.sqlite.pragma('max_page_count = 1073741823');
    expect((await t.readiness()).status).toBe(200); // no write in between
    expect((await t.health()).body).toEqual({ status: 'ok' });
  });

  it('a read-API write on a full database is a 503 too, never a 500', async () => {
    const t = await start();
    // Marking single alerts read writes one exception row each: enough of them need a new page.
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) ids.push((await bodyOf.accepted(await t.post({ title: `to read ${i}` }))).alertId);
    t.sqlite.pragma(`max_page_count = ${t.sqlite.pragma('page_count', { simple: true }) as number}`);
    for (let i = 0; i < 200; i++) if ((await t.post({ title: `fill ${i}`, message: 'm'.repeat(4000) })).status === 503) break;
    const statuses: number[] = [];
    let problem: ProblemBody | undefined;
    for (const id of ids) {
      const r = await fetch(`${t.base}/api/alerts/${id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t.seed.ownerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ isRead: true }),
      });
      statuses.push(r.status);
      if (r.status !== 200) {
        problem = await bodyOf.problem(r);
        break;
      }
      await r.body?.cancel();
    }
    expect(statuses.at(-1)).toBe(503);
    expect(problem?.type).toBe('http://alertbridge.test/problems/storage-unavailable');
    expect(t.lines.filter((l) => l.includes('unhandled error'))).toEqual([]);
  });
});

describe('media free-space reserve', () => {
  it('refuses an attachment that would cross MEDIA_FREE_SPACE_RESERVE_MB with the 503 problem and keeps no file; /readyz reports the disk', async () => {
    // A reserve larger than any disk: every upload would cross it.
    const t = await start({ MEDIA_FREE_SPACE_RESERVE_MB: '100000000' });
    const res = await t.post({ title: 'with a picture', attachments: [{ data: png().toString('base64'), type: 'image' }] });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    const problem = await bodyOf.problem(res);
    expect(problem.type).toBe('http://alertbridge.test/problems/storage-unavailable');
    expect(problem.detail).toMatch(/^nothing was stored: free space on the data volume is below the reserve \(\d+ MB free, 100000000 MB kept free\); retry later$/);
    expect(t.count('with a picture')).toBe(0);
    expect(fs.readdirSync(h!.config.mediaDir)).toEqual([]);

    const health = await t.health();
    expect(health.body.status).toBe('degraded');
    expect(health.body.reasons?.[0]).toMatch(/^storage: free space on the data volume is below the reserve/);
    const ready = await t.readiness();
    expect(ready.status).toBe(503);
    expect(ready.body.checks.disk).toMatchObject({ status: 'fail', reserveMb: 100000000 });

    // An alert without files still fits (the reserve is for media): it is stored and clears `degraded`,
    // while /readyz keeps failing on the disk check until space is freed.
    expect((await t.post({ title: 'text only' })).status).toBe(201);
    expect((await t.health()).body).toEqual({ status: 'ok' });
    expect((await t.readiness()).status).toBe(503);
  });

  it('with room above the reserve, the same upload is stored', async () => {
    const t = await start({ MEDIA_FREE_SPACE_RESERVE_MB: '1' });
    const res = await t.post({ title: 'fits', attachments: [{ data: png().toString('base64'), type: 'image' }] });
    expect(res.status).toBe(201);
    expect(fs.readdirSync(h!.config.mediaDir).length).toBe(1);
  });
});

describe('storage failure classification', () => {
  it('recognises a real ENOSPC from the kernel (/dev/full), SQLite codes and causes, and nothing else', () => {
    let enospc: unknown;
    try {
      fs.writeFileSync('/dev/full', 'x');
    } catch (err) {
      enospc = err;
    }
    expect(storageFailureOf(enospc)).toEqual({ kind: 'full', reason: 'no space left on device' });
    expect(storageFailureOf(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }))).toEqual({ kind: 'io', reason: 'disk I/O error' });
    expect(storageFailureOf(new Error('wrapped', { cause: Object.assign(new Error('quota'), { code: 'EDQUOT' }) }))).toEqual({
      kind: 'full',
      reason: 'disk quota exceeded',
    });
    expect(storageFailureOf(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }))).toBeNull();
    expect(storageFailureOf(new Error('plain'))).toBeNull();
  });
});
