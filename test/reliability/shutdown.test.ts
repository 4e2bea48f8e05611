import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testEngine, tempDir } from '../helpers/harness.js';
import { freshDatabase, type FreshDatabase } from '../helpers/pg.js';
import { readRows } from '../helpers/other-connection.js';
import { logLines, spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { SseClient } from '../helpers/sse-client.js';

let svc: SpawnedService | undefined;
let dir: string;
let fresh: FreshDatabase | undefined;
afterEach(async () => {
  svc?.child.kill('SIGKILL');
  await svc?.exited;
  svc = undefined;
  await fresh?.drop();
  fresh = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The spawned service's DATA_DIR and, on PostgreSQL (TEST_ENGINE=postgres), a fresh database of its own. */
async function installation(): Promise<Record<string, string>> {
  dir = tempDir();
  if (testEngine() === 'sqlite') return { DATA_DIR: dir };
  fresh = await freshDatabase({ migrated: true });
  return { DATA_DIR: dir, DATABASE_URL: fresh.url };
}

/** Rows read after the service exited (`?` placeholders): from the SQLite file, or through a connection of the test's own. */
function rowsAfterExit<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return readRows<T>(fresh ? { url: fresh.url } : { dbFile: path.join(dir, 'alertbridge.db') }, sql, params);
}

interface Answer {
  status: number;
  connection: string | undefined;
  alertId: string | undefined;
  at: number;
}

/** One keep-alive connection posting alerts back to back until the server closes it (or refuses a new one). */
function keepAliveLoop(url: string, n: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Answer[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let error: Error | undefined;
  const post = (i: number) =>
    new Promise<Answer>((resolve, reject) => {
      const body = JSON.stringify({ title: `loop ${n}/${i}`, level: 'info' });
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          const json = res.statusCode === 201 ? (JSON.parse(text) as { alertId: string }) : undefined;
          resolve({ status: res.statusCode!, connection: res.headers.connection, alertId: json?.alertId, at: Date.now() });
        });
      });
      req.on('socket', (s) => sockets.add(s));
      req.on('error', reject);
      req.end(body);
    });
  const done = (async () => {
    for (let i = 0; ; i++) {
      try {
        const a = await post(i);
        answers.push(a);
        if (a.connection === 'close') break;
      } catch (err) {
        error = err as Error;
        break;
      }
    }
    agent.destroy();
  })();
  return { answers, sockets, done, error: () => error };
}

/** A POST whose body is sent in two halves: the first before the signal, the rest after. */
function slowPost(url: string, body: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let socketClosed = false;
  let resolveAnswer!: (a: Answer) => void;
  const answer = new Promise<Answer>((r) => (resolveAnswer = r));
  const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (text += d));
    res.on('end', () =>
      resolveAnswer({ status: res.statusCode!, connection: res.headers.connection, alertId: (JSON.parse(text) as { alertId?: string }).alertId, at: Date.now() }),
    );
  });
  req.on('socket', (s) => s.on('close', () => (socketClosed = true)));
  req.on('error', () => {});
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { answer, finish: () => req.end(body.slice(half)), socketClosed: () => socketClosed, agent };
}

/** The spawned service runs on the engine under test (a PostgreSQL run that silently used a SQLite file would prove nothing). */
async function expectEngineOf(s: SpawnedService): Promise<void> {
  const engine = () => logLines(s.output()).map((l) => JSON.parse(l) as { msg?: string; database?: string }).find((l) => l.msg === 'alertbridge listening')?.database;
  await expect.poll(engine).toBe(testEngine());
}

async function storedAlertIds(): Promise<Set<string>> {
  return new Set((await rowsAfterExit<{ id: string }>('SELECT id FROM alerts')).map((r) => r.id));
}

describe('graceful shutdown (a real process)', () => {
  it('SIGTERM under keep-alive load: Connection: close, in-flight requests finish, every 201 is stored, SSE gets `shutdown`, exit 0 in time', async () => {
    const metricsToken = 'mt_shutdown_test_0123456789abcdef';
    svc = await spawnService({ ...(await installation()), SHUTDOWN_TIMEOUT_MS: '10000', METRICS: '1', METRICS_TOKEN: metricsToken, LOG_LEVEL: 'debug' });
    await expectEngineOf(svc);
    const hook = svc.webhookUrl!;
    expect((await fetch(`${svc.base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(200);
    expect((await fetch(`${svc.base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const sse = await SseClient.open(`${svc.base}/api/stream`, { token: svc.apiToken });
    expect(sse.status).toBe(200);
    await sse.until((c) => c.retry !== undefined, 'retry line');

    const loops = [0, 1, 2, 3].map((n) => keepAliveLoop(hook, n));
    const slow = slowPost(hook, JSON.stringify({ title: 'in flight at the signal', level: 'warning', message: 'x'.repeat(2000) }));
    // Busy: every loop connection is serving requests back to back.
    await expect.poll(() => Math.min(...loops.map((l) => l.answers.length)), { timeout: 15_000 }).toBeGreaterThanOrEqual(30);

    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    // The slow request's headers and half its body arrived before the signal; the rest comes after.
    await expect.poll(() => svc!.output().includes('shutting down'), { timeout: 5_000 }).toBe(true);
    slow.finish();
    const inFlight = await slow.answer;
    expect(inFlight.status).toBe(201);
    expect(inFlight.connection).toBe('close');
    await expect.poll(() => slow.socketClosed(), { timeout: 5_000 }).toBe(true);

    await Promise.all(loops.map((l) => l.done));
    const code = await svc.exited;
    const tookMs = Date.now() - signalled;
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(10_000);

    for (const l of loops) {
      // Either its last answer said Connection: close, or the connection was idle at the signal and was
      // closed before its next request arrived (that request was not answered, which the contract allows).
      const last = l.answers.at(-1)!;
      expect(last.connection === 'close' || l.error() !== undefined).toBe(true);
      // No busy connection keeps being served: at most the request in flight is answered after the signal.
      expect(l.answers.filter((a) => a.at > signalled + 1000).length).toBe(0);
      for (const s of l.sockets) expect(s.destroyed).toBe(true);
    }
    // The SSE client was told to reconnect, and its stream ended.
    await sse.until((c) => c.ofType('shutdown').length === 1 && c.ended, 'shutdown event and end');
    expect(JSON.parse(sse.ofType('shutdown')[0]!.data)).toMatchObject({ reason: 'server shutting down', retryMs: expect.any(Number) });

    // Every 201 is stored (reopened after the exit).
    const acked = [...loops.flatMap((l) => l.answers), inFlight].filter((a) => a.status === 201).map((a) => a.alertId!);
    expect(acked.length).toBeGreaterThanOrEqual(121);
    const stored = await storedAlertIds();
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);

    const out = svc.output();
    expect(out).toContain('shut down');
    const webhookSecret = hook.split('/').pop()!;
    for (const line of logLines(out)) {
      expect(line).not.toContain(svc.apiToken!);
      expect(line).not.toContain(webhookSecret);
      expect(line).not.toContain(metricsToken);
    }
  }, 60_000);

  it('a request that never completes does not hold the exit past SHUTDOWN_TIMEOUT_MS: it is cut unanswered, exit 0', async () => {
    svc = await spawnService({ ...(await installation()), SHUTDOWN_TIMEOUT_MS: '1500' });
    await expectEngineOf(svc);
    const stuck = slowPost(svc.webhookUrl!, JSON.stringify({ title: 'never finished', message: 'y'.repeat(1000) }));
    let answered = false;
    void stuck.answer.then(() => (answered = true));
    // Any completed request on another connection proves the stuck one's headers were read first.
    expect((await fetch(`${svc.base}/healthz`)).status).toBe(200);

    const signalled = Date.now();
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(1500 + 500);
    expect(answered).toBe(false);
    await expect.poll(() => stuck.socketClosed()).toBe(true);
    stuck.agent.destroy();
    expect(svc.output()).toContain('requests still running at the drain deadline');
    expect(await rowsAfterExit(`SELECT id FROM alerts WHERE title = 'never finished'`)).toEqual([]);
  }, 30_000);
});
