import { spawn, type ChildProcess } from 'node:child_process';
import { Pool } from 'undici';
import { startScriptNodeArgs } from './lib/result.js';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarize(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), mean: s.reduce((a, b) => a + b, 0) / (s.length || 1) };
}

export const ms = (n: number) => n.toFixed(3);

/**
 * Calls before timing. 1,000, not 200: with 200, the first 2,000 timed pages
 * through the app had twice the p99 of the next ones (V8 was still tiering up
 * the request path), while the direct query was already steady.
 */
const WARM_UP = 1000;

/** Times `fn` `iterations` times (after a warm-up) and returns per-call latencies in ms. */
export async function timeIt(iterations: number, fn: (i: number) => unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(WARM_UP, iterations); i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Times two operations alternately (a, b, a, b, ...) so that drift on a shared
 * machine (other jobs, GC, CPU frequency) lands on both sides of a ratio.
 */
export async function timePair(iterations: number, a: () => unknown, b: () => unknown): Promise<[number[], number[]]> {
  for (let i = 0; i < Math.min(WARM_UP, iterations); i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  return [ta, tb];
}

/**
 * Closed-loop HTTP load: `connections` clients, spread evenly over `url` (one server, or several
 * nodes as a load balancer would), each sending a request, waiting for the answer and sending the
 * next, for `seconds`. Returns throughput, latency and the load generator's own CPU per request.
 */
export async function load(opts: {
  url: string | string[];
  method?: 'GET' | 'POST';
  path: string;
  /** A fixed body, or one made per request (a fresh dedupKey each time). */
  body?: string | (() => string);
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  expectStatus: number;
}) {
  const urls = typeof opts.url === 'string' ? [opts.url] : opts.url;
  const pools = urls.map((url) => new Pool(url, { connections: Math.ceil(opts.connections / urls.length), pipelining: 1 }));
  const method = opts.method ?? 'POST';
  const headers = { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + opts.seconds * 1000;
  const worker = async (i: number) => {
    const pool = pools[i % pools.length]!;
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const body = typeof opts.body === 'function' ? opts.body() : opts.body;
        const res = await pool.request({ method, path: opts.path, body, headers });
        await res.body.dump();
        if (res.statusCode !== opts.expectStatus) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: opts.connections }, (_, i) => worker(i)));
  const used = process.cpuUsage(cpu);
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  /** The load generator's own CPU per request: on a 2-core machine it shares the cores with the server. */
  const clientCpu = (used.user + used.system) / Math.max(1, latencies.length);
  return { rps: latencies.length / elapsed, errors, clientCpu, requests: latencies.length, ...summarize(latencies) };
}

/** Starts a bench server script in its own process and waits for the port it prints. */
export async function startServerProcess(script: string, env: Record<string, string>): Promise<{ url: string; banner: string; child: ChildProcess; stop(): Promise<string> }> {
  // Every server (the baseline too) with npm start's node flags, so a ratio compares like with like.
  const nodeArgs = [...startScriptNodeArgs(), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let errText = '';
  child.stderr!.on('data', (d) => (errText += d));
  let buf = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      buf += d;
      const m = /LISTENING (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    url,
    banner: buf,
    child,
    /** Stops the server and returns what it printed on stderr (its own figures). */
    stop: () =>
      new Promise<string>((r) => {
        child.once('exit', () => r(errText));
        child.kill('SIGTERM');
      }),
  };
}

/** The webhook body every ingest bench posts (395 bytes: title, level, emoji, message, three fields, link, source, actor). */
export const WEBHOOK_PAYLOAD = JSON.stringify({
  title: 'Deploy finished: api v1.42.0',
  level: 'success',
  emoji: ':rocket:',
  message: 'All checks passed; 3 instances updated in eu-west-1.',
  fields: [
    { label: 'service', value: 'api', inline: true },
    { label: 'version', value: 'v1.42.0', inline: true },
    { label: 'duration', value: 187 },
  ],
  linkUrl: 'https://ci.example.com/runs/4242',
  source: 'github-actions',
  actor: { email: 'jane.doe@acme.com' },
});
