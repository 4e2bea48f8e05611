import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { ManualClock, systemClock } from '../src/lib/clock.js';
import { openServices } from '../src/services.js';
import { summarize, ms } from './lib.js';
import { argValue, emitResult, QUICK } from './lib/result.js';

/**
 * Heartbeats (docs/heartbeats.md), on SQLite in one process (server and load generator share the
 * 2 cores, so the ping rate is a floor):
 *
 * - pings per second: UUID pings over loopback HTTP with 16 connections, spread over the checks so
 *   the per-check rate limit never drops one (every ping is a recorded transaction);
 * - the timer with CHECKS checks: the CPU, wall time and heap of one pass with nothing due (what
 *   the leader pays every wake-up) and of the pass that moves every check down and writes its alert;
 * - the real delay between a check's due time and the timer marking it down (system clock).
 *
 *   npm run bench -- heartbeats [--checks 10000] [--seconds 10]
 */
const CHECKS = Number(argValue('checks') ?? (QUICK ? 1_000 : 10_000));
const SECONDS = Number(argValue('seconds') ?? (QUICK ? 3 : 10));
const CONNECTIONS = 16;
const MB = 1024 * 1024;

async function withServices<T>(clock: ManualClock | typeof systemClock, run: (s: Awaited<ReturnType<typeof openServices>>, base: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-hb-'));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_FETCH: '0', PUBLIC_URL: 'http://127.0.0.1' });
  const services = await openServices(config, { clock });
  const app = createApp(services);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await run(services, base);
  } finally {
    server.close();
    await services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One pass's CPU (ms), wall time (ms) and heap growth (MB). */
async function measuredPass(pass: () => Promise<unknown>) {
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  const t = performance.now();
  const result = await pass();
  const wall = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { result, wallMs: wall, cpuMs: (used.user + used.system) / 1000, heapMb: (process.memoryUsage().heapUsed - heap) / MB };
}

const clock = new ManualClock(Date.now());
await withServices(clock, async (s, base) => {
  const a = s.accounts;
  const ws = await a.createWorkspace('Bench');
  const channel = await a.createChannel({ workspaceId: ws.id, name: 'Jobs' });
  const uuids: string[] = [];
  for (let i = 0; i < CHECKS; i++) uuids.push((await s.heartbeats.checks.create({ channelId: channel.id, name: `job ${i}`, period: '1h', grace: '5m' })).pingUuid);

  // Pings per second, every one recorded.
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const res = await pool.request({ method: 'POST', path: `/ping/${uuids[next++ % uuids.length]}`, body: 'ok', headers: { 'content-type': 'text/plain' } });
        await res.body.dump();
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const pingsPerSec = latencies.length / ((performance.now() - started) / 1000);
  await pool.close();
  const lat = summarize(latencies);
  // Checks the flood did not reach get their first ping here, so every check is due.
  for (const u of uuids.slice(Math.min(next, uuids.length))) await s.heartbeats.pinger.byUuid(u, { suffix: undefined, rid: undefined, method: 'GET', userAgent: null, body: null });

  clock.advance(30 * 60_000);
  const idle = await measuredPass(() => s.heartbeats.timer.pass());
  clock.advance(60 * 60_000);
  const down = await measuredPass(() => s.heartbeats.timer.pass());

  console.log(`## Heartbeats (SQLite, ${CHECKS.toLocaleString('en')} checks, one process)\n`);
  console.log('| Figure | Value |');
  console.log('|---|---|');
  console.log(`| Pings per second (${CONNECTIONS} connections, ${SECONDS} s, every ping recorded) | ${Math.round(pingsPerSec).toLocaleString('en')} (p50 ${ms(lat.p50)} ms, p99 ${ms(lat.p99)} ms, ${errors} errors) |`);
  console.log(`| Timer pass, nothing due | ${ms(idle.wallMs)} ms wall, ${ms(idle.cpuMs)} ms CPU, ${idle.heapMb.toFixed(1)} MB heap |`);
  console.log(`| Timer pass, all ${CHECKS.toLocaleString('en')} down with their alerts | ${Math.round(down.wallMs)} ms wall, ${Math.round(down.cpuMs)} ms CPU, ${down.heapMb.toFixed(1)} MB heap (${JSON.stringify(down.result)}) |`);
  emitResult({ heartbeatPingsPerSec: pingsPerSec, heartbeatPingP99Ms: lat.p99, heartbeatIdlePassMs: idle.wallMs, heartbeatIdlePassCpuMs: idle.cpuMs, heartbeatDownPassMs: down.wallMs, heartbeatDownPassCpuMs: down.cpuMs, heartbeatDownPassHeapMb: down.heapMb });
});

// The real delay: a 1-second check, the timer running as on the leader, the system clock.
await withServices(systemClock, async (s) => {
  const ws = await s.accounts.createWorkspace('Bench');
  const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'Jobs' });
  const part = s.heartbeats.timer.start();
  const delays: number[] = [];
  try {
    for (let i = 0; i < (QUICK ? 3 : 10); i++) {
      const c = await s.heartbeats.checks.create({ channelId: channel.id, name: `tick ${i}`, period: '1s', grace: '1s' });
      await s.heartbeats.pinger.byUuid(c.pingUuid, { suffix: undefined, rid: undefined, method: 'GET', userAgent: null, body: null });
      const due = (await s.heartbeats.checks.require(c.id)).downAt!;
      for (;;) {
        const now = (await s.heartbeats.checks.require(c.id)).status === 'down' ? Date.now() : undefined;
        if (now !== undefined) {
          delays.push(now - due);
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  } finally {
    await part.stop();
  }
  const d = summarize(delays);
  console.log(`| Delay from due time to down (1 s checks, ${delays.length} runs) | p50 ${ms(d.p50)} ms, max ${ms(Math.max(...delays))} ms |`);
  emitResult({ heartbeatDownDelayP50Ms: d.p50, heartbeatDownDelayMaxMs: Math.max(...delays) });
});
