import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, ms, startServerProcess, WEBHOOK_PAYLOAD } from './lib.js';
import { cpuStages } from './lib/cpu-stages.js';
import { emitResult, QUICK } from './lib/result.js';

/**
 * Webhook ingest over loopback HTTP: the real service (validation, group
 * commit, outbox row, stream event) against a bare Hono route that parses the
 * same JSON and answers 201 without storing, measured in the same run. Two
 * reference floors show where the gap comes from: the issue's own figure
 * (Hono + zod + one narrow INSERT, group-committed), once with a small schema
 * and once with the service's payload schema. The load generator runs in this
 * process, each server in its own.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1 : 8));
const CONNECTIONS = 50;
const payload = WEBHOOK_PAYLOAD;
/** The same body with a dedupKey: after the first POST every request updates that one alert in place (occurrences + 1). */
const keyedPayload = JSON.stringify({ ...(JSON.parse(WEBHOOK_PAYLOAD) as object), dedupKey: 'bench:deploy-api' });
/** A new dedupKey on every request: each POST creates its keyed alert (the key's look-up, then an insert, one unit each). */
let freshKeys = 0;
const freshKeyPayload = () => JSON.stringify({ ...(JSON.parse(WEBHOOK_PAYLOAD) as object), dedupKey: `bench:host-${++freshKeys}` });

async function measure(script: string, env: Record<string, string>, body: string | (() => string) = payload) {
  const server = await startServerProcess(script, env);
  const token = /TOKEN (\S+)/.exec(server.banner)?.[1] ?? 'x';
  const p = `/api/webhook/${token}`;
  await load({ url: server.url, path: p, body, connections: CONNECTIONS, seconds: QUICK ? 0.3 : 1, expectStatus: 201 }); // warm-up
  server.child.kill('SIGUSR2'); // the server starts counting its CPU time here
  const r = await load({ url: server.url, path: p, body, connections: CONNECTIONS, seconds: SECONDS, expectStatus: 201 });
  const report = await server.stop();
  const cpu = Number(/CPU ([\d.]+) µs per request/.exec(report)?.[1] ?? NaN);
  const routed = /ROUTED (\d+) SENT (\d+)/.exec(report);
  return { ...r, cpu, routed: routed ? { rows: Number(routed[1]), sent: Number(routed[2]) } : undefined };
}

/**
 * The webhook with three routes on its channel (issue 27), beside the same service without: once
 * with the outbox rows only (the route worker off: what the request itself does), once with the
 * worker sending to a receiver in its own process, as `npm start` runs it.
 */
async function measureRouted(dir: string) {
  const receiver = await startServerProcess('bench/servers/route-receiver.ts', {});
  try {
    const env = { BENCH_ROUTES: '3', BENCH_ROUTE_URL: receiver.url };
    const rowsOnly = await measure('bench/servers/alertbridge.ts', { ...env, DATA_DIR: path.join(dir, 'routes-rows') });
    const sending = await measure('bench/servers/alertbridge.ts', { ...env, DATA_DIR: path.join(dir, 'routes-sending'), BENCH_ROUTE_WORKER: '1' });
    return { rowsOnly, sending };
  } finally {
    await receiver.stop();
  }
}

export async function webhookBench(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-'));
  try {
    const bare = await measure('bench/servers/bare-hono.ts', {});
    // BENCH_QUICK (the --json test) skips the two reference floors: context, not tracked figures.
    const floor = QUICK ? undefined : await measure('bench/servers/group-commit-floor.ts', { DATA_DIR: path.join(dir, 'floor') });
    const floorFull = QUICK ? undefined : await measure('bench/servers/group-commit-floor.ts', { DATA_DIR: path.join(dir, 'floor-full'), FLOOR_SCHEMA: 'alertbridge' });
    const real = await measure('bench/servers/alertbridge.ts', { DATA_DIR: dir });
    const keyed = await measure('bench/servers/alertbridge.ts', { DATA_DIR: path.join(dir, 'keyed') }, keyedPayload);
    const fresh = await measure('bench/servers/alertbridge.ts', { DATA_DIR: path.join(dir, 'fresh-keys') }, freshKeyPayload);
    const routed = await measureRouted(dir);
    // Where the webhook's CPU goes, from a CPU profile over a run of its own (sampling slows it a little).
    const profileFile = path.join(dir, 'webhook.cpuprofile');
    const profiled = await measure('bench/servers/alertbridge.ts', { DATA_DIR: path.join(dir, 'profiled'), BENCH_CPU_PROFILE: profileFile });
    const stages = cpuStages(profileFile);
    emitResult({
      webhookNewDedupKeyCpuUsPerReq: fresh.cpu,
      webhookNewDedupKeyReqPerSec: fresh.rps,
      webhookNewDedupKeyP99Ms: fresh.p99,
      webhookDedupCpuUsPerReq: keyed.cpu,
      webhookDedupReqPerSec: keyed.rps,
      webhookDedupP99Ms: keyed.p99,
      webhookCpuUsPerReq: real.cpu,
      bareCpuUsPerReq: bare.cpu,
      webhookCpuRatioToBare: real.cpu / bare.cpu,
      webhookReqPerSec: real.rps,
      bareReqPerSec: bare.rps,
      webhookP50Ms: real.p50,
      webhookP99Ms: real.p99,
      bareP50Ms: bare.p50,
      bareP99Ms: bare.p99,
      floorCpuUsPerReq: floor?.cpu,
      floorReqPerSec: floor?.rps,
      floorFullSchemaCpuUsPerReq: floorFull?.cpu,
      floorFullSchemaReqPerSec: floorFull?.rps,
      webhookThreeRoutesReqPerSec: routed.rowsOnly.rps,
      webhookThreeRoutesCpuUsPerReq: routed.rowsOnly.cpu,
      webhookThreeRoutesP99Ms: routed.rowsOnly.p99,
      webhookThreeRoutesSendingReqPerSec: routed.sending.rps,
      webhookThreeRoutesSendingCpuUsPerReq: routed.sending.cpu,
      webhookThreeRoutesSendingP99Ms: routed.sending.p99,
      ...Object.fromEntries(stages.map((st) => [`webhookStage${st.key}Us`, st.share * real.cpu])),
    });
    const pct = (r: typeof bare) => `${((r.rps / bare.rps) * 100).toFixed(0)} %`;
    const row = (name: string, r: typeof bare) =>
      `| ${name} | ${Math.round(r.rps).toLocaleString('en')} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.cpu.toFixed(0)} | ${r.clientCpu.toFixed(0)} | ${r.errors} |`;
    return [
      `### Webhook ingest (${CONNECTIONS} connections, ${SECONDS} s, JSON POST of ${payload.length} bytes over loopback)`,
      '',
      '| server | requests/s | p50 ms | p99 ms | server CPU µs per request | load generator CPU µs per request | errors |',
      '|---|---|---|---|---|---|---|',
      row('bare Hono route: parse JSON, answer 201, store nothing (baseline)', bare),
      ...(floor ? [row(`reference floor: Hono + zod + ONE narrow INSERT, same group commit (${pct(floor)})`, floor)] : []),
      ...(floorFull ? [row(`reference floor with Alertbridge's own payload schema (${pct(floorFull)})`, floorFull)] : []),
      row(`Alertbridge webhook: full validation, alert + outbox + stream + usage rows, 201 after COMMIT (${pct(real)})`, real),
      row(`Alertbridge webhook with a dedupKey: the same alert updated in place, occurrences + 1, change event (${pct(keyed)})`, keyed),
      row(`Alertbridge webhook with a new dedupKey each time: the key looked up, then a keyed alert created (${pct(fresh)})`, fresh),
      row(`Alertbridge webhook, three routes on the channel: + 3 outbox rows in the alert's transaction, worker off (${pct(routed.rowsOnly)})`, routed.rowsOnly),
      row(`Alertbridge webhook, three routes, the route worker sending in the same process (${pct(routed.sending)})`, routed.sending),
      '',
      `Three routes: ${routed.sending.routed?.sent.toLocaleString('en') ?? '?'} of ${routed.sending.routed?.rows.toLocaleString('en') ?? '?'} deliveries sent by the time the load stopped (the rest queue in the outbox, in order; none is sent inside a request).`,
      '',
      `Ratio to the baseline: **${pct(real)}** (goal: at least 60 %)${floor && floorFull ? `; the reference floor reaches ${pct(floor)} in the same run, ${pct(floorFull)} with the service's payload schema` : ''}.`,
      '',
      `#### Webhook CPU per alert by stage (a CPU profile over a run of its own: ${Math.round(profiled.rps).toLocaleString('en')} req/s, ${profiled.cpu.toFixed(0)} µs per request while sampled; µs below are each share of the unsampled run's ${real.cpu.toFixed(0)} µs)`,
      '',
      '| stage | share | µs per alert |',
      '|---|---|---|',
      ...stages.map((st) => `| ${st.name} | ${(st.share * 100).toFixed(1)} % | ${(st.share * real.cpu).toFixed(0)} |`),
      '',
      `Bare route in the same run: ${bare.cpu.toFixed(0)} µs per request (HTTP adapter, node's HTTP, JSON parse and the answer).`,
    ].join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await webhookBench());
