import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/services.js';
import { testEngine, seedWorkspace, tempDir } from '../helpers/harness.js';
import { freshDatabase, type FreshDatabase } from '../helpers/pg.js';
import { readRows } from '../helpers/other-connection.js';
import { startService, type SpawnedService } from '../helpers/spawned-service.js';

/**
 * kill -9 at a random moment under load: every alert answered 201 survives,
 * the service restarts cleanly on the same DATA_DIR (and, on PostgreSQL, the
 * same database), and keyed retries never duplicate. CRASH_TRIALS trials (3 in `npm test`, 20 in `npm run test:soak`),
 * chained on one DATA_DIR: each restart is the next trial's service.
 */
const TRIALS = Number(process.env.CRASH_TRIALS ?? 3);
const CONNECTIONS = 16;
/** Restarting must not take long even on a busy CI machine (measured: 1.4-2.1 s on an idle one). */
const MAX_RESTART_MS = 15_000;

let dir: string;
let webhookToken: string;
let service: SpawnedService | undefined;
/** On PostgreSQL (TEST_ENGINE=postgres): the installation's database, which outlives every kill. */
let fresh: FreshDatabase | undefined;
/** What every service process of the test gets besides DATA_DIR. */
let env: Record<string, string> = {};

beforeAll(async () => {
  dir = tempDir('alertbridge-crash-');
  if (testEngine() === 'postgres') {
    fresh = await freshDatabase({ migrated: true });
    env = { DATABASE_URL: fresh.url };
  }
  const s = await openServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', ...env }));
  expect(s.engine).toBe(testEngine());
  webhookToken = (await seedWorkspace(s)).general.webhookToken;
  await s.close();
});

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  await fresh?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Sent {
  title: string;
  key: string | undefined;
  /** The alertId of a 201; undefined when the request got no answer (killed in flight). */
  alertId?: string;
}

const body = (title: string) => JSON.stringify({ title, level: 'info', message: 'crash trial' });

/** Posts from `CONNECTIONS` keep-alive connections until the process dies; every request is recorded. */
async function load(base: string, trial: number, state: { killed: boolean }, onFirstAnswer: () => void): Promise<Sent[]> {
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1 });
  const sent: Sent[] = [];
  const worker = async (w: number) => {
    for (let i = 0; !state.killed; i++) {
      // Every other request carries an Idempotency-Key, so the retries below can be checked.
      const title = `t${trial}-w${w}-${i}`;
      const key = i % 2 === 0 ? `key-${title}` : undefined;
      const rec: Sent = { title, key };
      sent.push(rec);
      try {
        const res = await pool.request({
          method: 'POST',
          path: `/api/webhook/${webhookToken}`,
          headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
          body: body(title),
        });
        const json = (await res.body.json()) as { alertId?: string };
        if (res.statusCode === 201) {
          rec.alertId = json.alertId;
          onFirstAnswer();
        } else throw new Error(`unexpected ${res.statusCode}: ${JSON.stringify(json)}`);
      } catch (err) {
        // Set just before the signal is sent: a failure before it is a real one, after it an expected socket error.
        if (!state.killed) throw err;
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  } finally {
    await pool.destroy();
  }
  return sent;
}

/** Every stored alert id by title, read through a connection of the test's own (the SQLite file, or the database). */
async function readAlerts(): Promise<Map<string, string[]>> {
  const byTitle = new Map<string, string[]>();
  for (const row of await alertRows()) byTitle.set(row.title, [...(byTitle.get(row.title) ?? []), row.id]);
  return byTitle;
}

function alertRows(): Promise<{ id: string; title: string }[]> {
  return readRows(fresh ? { url: fresh.url } : { dbFile: path.join(dir, 'alertbridge.db') }, 'SELECT id, title FROM alerts');
}

describe('crash safety', () => {
  it(`${TRIALS} trials of kill -9 under ${CONNECTIONS}-connection load lose no acknowledged alert and never duplicate a keyed retry`, { timeout: 60_000 + TRIALS * 20_000 }, async () => {
    service = await startService(dir, env);
    const report: { trial: number; killAfterMs: number; answered: number; inFlight: number; restartMs: number }[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const victim = service;
      // A random moment: counted from the first 201 (the load runs), 50-800 ms later.
      const killAfterMs = 50 + Math.floor(Math.random() * 750);
      let firstAnswer!: () => void;
      const running = new Promise<void>((r) => (firstAnswer = r));
      const state = { killed: false };
      const killed = running.then(async () => {
        await new Promise((r) => setTimeout(r, killAfterMs));
        state.killed = true;
        victim.child.kill('SIGKILL');
        await victim.exited;
      });
      const sent = await load(victim.base, trial, state, firstAnswer);
      await killed;
      const context = `trial ${trial}, killed ${killAfterMs} ms after the first 201`;
      expect(victim.child.signalCode, context).toBe('SIGKILL');
      const answered = sent.filter((s) => s.alertId);
      expect(answered.length, context).toBeGreaterThan(0);

      service = await startService(dir, env);
      expect(service.startMs, context).toBeLessThan(MAX_RESTART_MS);

      const stored = await readAlerts();
      const lost = answered.filter((s) => !stored.get(s.title)?.includes(s.alertId!));
      expect(lost.map((s) => s.title), `${context}: answered 201 but not stored`).toEqual([]);

      // Keyed retries after the restart: every request in flight at the kill, and some answered ones.
      const retries = sent.filter((s) => s.key && (!s.alertId || Math.random() < 0.05));
      const pool = new Pool(service.base, { connections: 8 });
      try {
        await Promise.all(
          retries.map(async (s) => {
            const res = await pool.request({
              method: 'POST',
              path: `/api/webhook/${webhookToken}`,
              headers: { 'content-type': 'application/json', 'idempotency-key': s.key! },
              body: body(s.title),
            });
            const json = (await res.body.json()) as { alertId?: string };
            expect({ title: s.title, status: res.statusCode }, context).toEqual({ title: s.title, status: 201 });
            if (s.alertId) {
              expect(json.alertId, `${context}: a replay answers the first alert`).toBe(s.alertId);
              expect(res.headers['idempotency-replayed']).toBe('true');
            }
          }),
        );
      } finally {
        await pool.close();
      }
      const after = await readAlerts();
      const duplicated = sent.filter((s) => s.key && (after.get(s.title)?.length ?? 0) > 1).map((s) => s.title);
      expect(duplicated, `${context}: keyed requests stored twice`).toEqual([]);
      for (const s of retries) expect(after.get(s.title)?.length, `${context}: ${s.title} after its retry`).toBe(1);

      report.push({ trial, killAfterMs, answered: answered.length, inFlight: sent.length - answered.length, restartMs: Math.round(service.startMs) });
    }
    // One line per trial in the test output: what an operator would want to know from a soak run.
    console.log(report.map((r) => `crash trial ${r.trial}: killed after ${r.killAfterMs} ms, ${r.answered} answered 201, ${r.inFlight} in flight, restart ${r.restartMs} ms`).join('\n'));

    const stop = service.exited;
    service.child.kill('SIGTERM');
    expect(await stop).toBe(0);
  });
});
