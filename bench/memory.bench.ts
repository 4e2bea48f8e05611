import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { WEBHOOK_PAYLOAD } from './lib.js';
import { summarizeHeap, diffHeaps, type HeapGroup } from './lib/heap-summary.js';
import { argValue, emitResult, hasFlag, QUICK, startScriptNodeArgs } from './lib/result.js';

/**
 * Memory of the real service as an operator sees it: `dist/main.js` started the
 * way `npm start` starts it (compiled JavaScript), in a temporary DATA_DIR,
 * its RSS read from /proc/<pid>/status (outside the process), idle, while N
 * alerts are posted through the webhook over loopback with 16 connections,
 * right after, and 5 s later. A bench-only preload (bench/lib/heap-hook.mjs)
 * reports the JS heap split on SIGUSR2 and, with --heap-snapshots, writes heap
 * snapshots that are summarised by constructor.
 *
 *   npm run bench -- memory [--alerts 1000000] [--heap-snapshots]
 *   BENCH_MEMORY_ALERTS=1000000, BENCH_NODE_ARGS=--max-semi-space-size=1 (the flag npm start used before 2026-11-26),
 *   BENCH_SQLITE_CACHE_KIB=2000 (overrides the service's cache_size: experiment only)
 */
const ALERTS = Number(argValue('alerts') ?? process.env.BENCH_MEMORY_ALERTS ?? (QUICK ? 2_000 : 100_000));
const CONNECTIONS = 16;
const SETTLE_MS = QUICK ? 1_000 : 5_000;
/**
 * V8's memory reducer shrinks the heap and the young generation once allocation has stopped for
 * about 10 s: RSS "at rest" is read this long after start, and after the ingest.
 */
const REST_MS = QUICK ? SETTLE_MS : 20_000;
const MILESTONES = [100_000, 300_000, 1_000_000, 3_000_000, 10_000_000].filter((m) => m < ALERTS);
const SNAPSHOTS = hasFlag('heap-snapshots') || process.env.BENCH_HEAP_SNAPSHOTS === '1';

interface ProcMem {
  rss: number;
  anon: number;
  file: number;
  shmem: number;
  hwm: number;
}
const MB = 1024 * 1024;
const mb = (bytes: number) => bytes / MB;

/** VmRSS and its split from the kernel's view of the process (kB in the file). */
function procMem(pid: number): ProcMem {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem'), hwm: kb('VmHWM') };
}

interface HookReport {
  usage: NodeJS.MemoryUsage;
  spaces: Record<string, { size: number; used: number }>;
  snapshot?: string;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function startService(dataDir: string, snapshotDir: string | undefined, firstStart = true) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const hook = pathToFileURL(path.resolve('bench/lib/heap-hook.mjs')).href;
  const nodeArgs = [...startScriptNodeArgs(), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, ...(snapshotDir ? ['--expose-gc'] : []), '--import', hook, 'dist/main.js'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      LOG_LEVEL: 'warn',
      AVATAR_BASE_URL: '',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_MINUTE: '100000000',
      ...(snapshotDir ? { HEAP_SNAPSHOT_DIR: snapshotDir, HEAP_HOOK_GC: '1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const reports: HookReport[] = [];
  const waiters: ((r: HookReport) => void)[] = [];
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d: Buffer) => {
    err += d;
    let i: number;
    while ((i = err.indexOf('\n')) >= 0) {
      const line = err.slice(0, i);
      err = err.slice(i + 1);
      if (line.startsWith('MEMORY ')) {
        const r = JSON.parse(line.slice(7)) as HookReport;
        const w = waiters.shift();
        if (w) w(r);
        else reports.push(r);
      } else if (line.trim()) process.stderr.write(`[service] ${line}\n`);
    }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  // A restart prints no first-start banner: it has nothing to wait for but /healthz.
  const webhookPath = !firstStart ? '' : await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      // stdout is a pipe, so the first-start banner is in the file stdout names (src/first-start-file.ts).
      const file = /sign-in link are in (\S+)/.exec(out)?.[1];
      const m = file ? /Webhook URL (\S+)/.exec(fs.readFileSync(file, 'utf8')) : null;
      if (m) {
        clearInterval(timer);
        resolve(new URL(m[1]!).pathname);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`service exited with ${code} before writing its webhook URL`));
    });
  });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      if (i > 300) throw new Error('service never answered /healthz');
    }
    await sleep(50);
  }
  return {
    pid: child.pid!,
    base,
    webhookPath,
    /** Asks the preload for its report (and a snapshot when enabled). */
    inspect: () =>
      new Promise<HookReport>((resolve) => {
        waiters.push(resolve);
        child.kill('SIGUSR2');
      }),
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Posts `total` alerts with `connections` keep-alive connections; calls `onCount` after each 201. */
async function ingest(base: string, p: string, total: number, onCount: (n: number) => void) {
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1 });
  let sent = 0;
  let ok = 0;
  let errors = 0;
  const worker = async () => {
    while (sent < total) {
      sent++;
      const res = await pool.request({ method: 'POST', path: p, body: WEBHOOK_PAYLOAD, headers: { 'content-type': 'application/json' } });
      await res.body.dump();
      if (res.statusCode === 201) onCount(++ok);
      else errors++;
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - t) / 1000;
  await pool.close();
  return { ok, errors, seconds };
}

const fmt = (n: number) => mb(n).toFixed(1);

/**
 * Anonymous memory that is neither V8's heap nor its external buffers: malloc'd
 * by native code (SQLite's page cache, libuv, allocator
 * slack). Approximate: the two readings are a few milliseconds apart.
 */
const native = (proc: ProcMem, h: HookReport) => proc.anon - h.usage.heapTotal - h.usage.external;

function split(r: HookReport) {
  const young = (r.spaces.new_space?.size ?? 0) + (r.spaces.new_large_object_space?.size ?? 0);
  return { heapTotal: r.usage.heapTotal, heapUsed: r.usage.heapUsed, young, external: r.usage.external, arrayBuffers: r.usage.arrayBuffers };
}

export async function memoryBench(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-mem-'));
  const snapshotDir = SNAPSHOTS ? fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-heap-')) : undefined;
  const svc = await startService(path.join(dir, 'data'), snapshotDir);
  try {
    await sleep(SETTLE_MS / 2); // start-up work (migrations, first GC) settles
    const idle = procMem(svc.pid);
    const idleHeap = await svc.inspect();
    await sleep(REST_MS - SETTLE_MS / 2);
    const idleRest = procMem(svc.pid);

    const atMilestone = new Map<number, ProcMem>();
    let next = 0;
    const r = await ingest(svc.base, svc.webhookPath, ALERTS, (n) => {
      if (next < MILESTONES.length && n === MILESTONES[next]) {
        atMilestone.set(n, procMem(svc.pid));
        next++;
      }
    });
    const after = procMem(svc.pid);
    const afterHeap = await svc.inspect();
    await sleep(SETTLE_MS);
    const later = procMem(svc.pid);
    const laterHeap = await svc.inspect();
    await sleep(REST_MS - SETTLE_MS);
    const rest = procMem(svc.pid);
    const stored = r.ok;
    // A restart on the same data: what a running installation holds idle most of its life
    // (the first start also migrates a new database and sets up its owner).
    await svc.stop();
    const again = await startService(path.join(dir, 'data'), undefined, false);
    await sleep(SETTLE_MS / 2);
    const restarted = procMem(again.pid);
    await again.stop();

    let heapSection: string[] = [];
    if (snapshotDir && idleHeap.snapshot && laterHeap.snapshot) {
      const before = summarizeHeap(idleHeap.snapshot);
      const afterS = summarizeHeap(laterHeap.snapshot);
      const rows = diffHeaps(before, afterS).slice(0, 15);
      const cell = (g: HeapGroup | undefined) => (g ? `${fmt(g.selfSize)} MB (${g.count.toLocaleString('en')})` : '–');
      heapSection = [
        '',
        `Heap snapshots (after a forced GC), idle vs ${SETTLE_MS / 1000} s after ingest: total ${fmt(before.total)} MB → ${fmt(afterS.total)} MB. Largest growth by constructor:`,
        '',
        '| constructor (type) | idle self size (objects) | after self size (objects) |',
        '|---|---|---|',
        ...rows.map((d) => `| ${d.key} | ${cell(d.before)} | ${cell(d.after)} |`),
        '',
        `Snapshots kept in ${snapshotDir}.`,
      ];
    }

    const heapRow = (name: string, proc: ProcMem, h: HookReport) => {
      const s = split(h);
      return `| ${name} | ${fmt(proc.rss)} | ${fmt(proc.anon)} | ${fmt(proc.file + proc.shmem)} | ${fmt(s.heapTotal)} (${fmt(s.heapUsed)} used) | ${fmt(s.young)} | ${fmt(s.external)} | ${fmt(native(proc, h))} |`;
    };
    const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
    const rate = stored / r.seconds;
    const figures: Record<string, number> = {
      rssIdleMb: mb(idle.rss),
      rssIdleHeapUsedMb: mb(idleHeap.usage.heapUsed),
      rssIdleAfterRestartMb: mb(restarted.rss),
      [`rssAfter${label(ALERTS)}Mb`]: mb(after.rss),
      rssAfterIngestMb: mb(after.rss),
      rssSettledMb: mb(later.rss),
      rssIdleAtRestMb: mb(idleRest.rss),
      rssAtRestAfterIngestMb: mb(rest.rss),
      rssPeakMb: mb(later.hwm),
      heapUsedAfterIngestMb: mb(laterHeap.usage.heapUsed),
      heapTotalIdleMb: mb(idleHeap.usage.heapTotal),
      heapTotalAfterIngestMb: mb(afterHeap.usage.heapTotal),
      nativeIdleMb: mb(native(idle, idleHeap)),
      nativeAfterIngestMb: mb(native(after, afterHeap)),
      memoryIngestAlertsPerSec: rate,
    };
    for (const [n, m] of atMilestone) figures[`rssAfter${label(n)}Mb`] = mb(m.rss);
    emitResult(figures);
    return [
      `### Memory of the service (dist/main.js, RSS from /proc; ${ALERTS.toLocaleString('en')} alerts through the webhook, ${CONNECTIONS} connections)`,
      '',
      '| moment | RSS MB | anonymous MB | file + shared MB | V8 heap MB | young generation MB | external MB | native MB (anonymous − heap − external) |',
      '|---|---|---|---|---|---|---|---|',
      heapRow('idle after start', idle, idleHeap),
      ...[...atMilestone].map(([n, m]) => `| after ${n.toLocaleString('en')} alerts | ${fmt(m.rss)} | ${fmt(m.anon)} | ${fmt(m.file + m.shmem)} | | | | |`),
      heapRow(`after ${stored.toLocaleString('en')} alerts`, after, afterHeap),
      heapRow(`${SETTLE_MS / 1000} s later`, later, laterHeap),
      `| at rest: ${REST_MS / 1000} s after start / after the ingest | ${fmt(idleRest.rss)} / ${fmt(rest.rss)} | | | | | | |`,
      `| idle after a restart on the same data (${SETTLE_MS / 2000} s) | ${fmt(restarted.rss)} | ${fmt(restarted.anon)} | ${fmt(restarted.file + restarted.shmem)} | | | | |`,
      '',
      `Ingest: **${Math.round(rate).toLocaleString('en')} alerts/s** (${r.errors} errors); peak RSS ${fmt(later.hwm)} MB.`,
      ...heapSection,
    ].join('\n');
  } finally {
    await svc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) console.log(await memoryBench());
