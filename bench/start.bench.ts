import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { emitResult, QUICK, startScriptNodeArgs } from './lib/result.js';

/**
 * Restart time (`npm run bench -- start`): a service killed with SIGKILL is started again and
 * timed to its first `200` on `/healthz`, three times each way, on one DATA_DIR that already holds
 * a bootstrapped database (so the times are a restart's, not a first start's):
 * - `node <npm start's flags> dist/main.js`, the production command (baseline);
 * - `npm start`, whose prestart only checks that dist/ is current (scripts/build-if-stale.mjs).
 * Also timed: the staleness check alone. Needs a current dist/ (`npm run bench` builds it first).
 */
const RUNS = QUICK ? 2 : 3;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Starts `cmd`, polls /healthz every 5 ms, returns the ms to the first 200, then SIGKILLs the whole process group. */
async function timeToHealthy(cmd: string, args: string[], dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(cmd, args, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', AVATAR_BASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true, // its own process group: npm, its shell and node die together
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${cmd} exited before answering /healthz`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 60_000) throw new Error(`${cmd} never answered /healthz`);
      await sleep(5);
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    if (!exited) await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => Math.round(x).toLocaleString('en');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-start-'));
try {
  const direct = [process.execPath, [...startScriptNodeArgs(), 'dist/main.js']] as const;
  // The first start bootstraps and migrates; it is not what a restart costs.
  await timeToHealthy(direct[0], [...direct[1]], dataDir);
  const node: number[] = [];
  const npm: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(await timeToHealthy(direct[0], [...direct[1]], dataDir));
    npm.push(await timeToHealthy('npm', ['start', '--silent'], dataDir));
  }
  const checks: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { stdio: 'inherit' });
    checks.push(performance.now() - t);
    if (r.status !== 0) throw new Error('build-if-stale failed');
  }
  emitResult({ startToHealthyMs: median(npm), startToHealthyMaxMs: Math.max(...npm), startNodeDirectToHealthyMs: median(node), startStaleCheckMs: median(checks) });
  console.log(`### Restart: start to the first healthy /healthz after a SIGKILL (${RUNS} runs each, interleaved)

| Command | median ms | slowest ms |
|---|---|---|
| \`node ${startScriptNodeArgs().join(' ')} dist/main.js\` (baseline) | ${ms(median(node))} | ${ms(Math.max(...node))} |
| \`npm start\` (build current: the staleness check, then the same) | ${ms(median(npm))} | ${ms(Math.max(...npm))} |
| the staleness check alone (\`node scripts/build-if-stale.mjs\`, process included) | ${ms(median(checks))} | ${ms(Math.max(...checks))} |`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
