import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, ms, percentile, startServerProcess, WEBHOOK_PAYLOAD } from './lib.js';
import { freshBenchDatabase, pgAdmin } from './lib/pg-database.js';
import { pgCpuSpent, samplePgServerCpu } from './lib/pg-server-cpu.js';
import { emitResult, QUICK } from './lib/result.js';

/**
 * Cluster mode (docs/cluster.md): the webhook and read figures on PostgreSQL
 * with one node and with two nodes on one database, beside the SQLite figures of the same run.
 * Each node is bench/servers/cluster-node.ts (the real service and HTTP app, no workers) in its own
 * process; the load generator in this process spreads its connections evenly over the nodes, as a
 * round-robin load balancer would. Reported, not a goal: on a 2-core machine two nodes, the
 * database server and the load generator all share the same two cores.
 *
 * Needs BENCH_DATABASE_URL (or TEST_DATABASE_URL): a server where the user may create databases;
 * each configuration gets a fresh `ab_bench_<random>` database, dropped after.
 */
const DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1 : 8));
const WARM_UP_SECONDS = QUICK ? 0.3 : 1;
const CONNECTIONS = 50;
/** Readers: fewer connections, as dashboards and API clients are fewer than senders. */
const READ_CONNECTIONS = 10;
const NODE_SCRIPT = 'bench/servers/cluster-node.ts';
/**
 * SQLite and one PostgreSQL node measured this many times, alternating; each figure is the median
 * of its rounds and each ratio the median of the rounds' own ratios. On a shared 2-core machine the
 * same configuration runs up to 2.5x slower for a minute at a time (the load generator's own CPU
 * per request, which no server change touches, rises with it), so one round can mislead.
 */
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 1)));
/** The least each engine can do for the same two requests (see the script). */
const FLOOR_SCRIPT = 'bench/servers/engine-floor.ts';

type Load = Awaited<ReturnType<typeof load>>;

type Node = Awaited<ReturnType<typeof startServerProcess>> & { reports: string[] };

async function startNode(env: Record<string, string>, script = NODE_SCRIPT): Promise<Node> {
  const server = await startServerProcess(script, env);
  const node: Node = Object.assign(server, { reports: [] as string[] });
  server.child.stderr!.on('data', (d: Buffer) => {
    for (const m of String(d).matchAll(/CPU ([\d.]+) µs per request over (\d+) requests/g)) node.reports.push(`${m[1]} ${m[2]}`);
  });
  return node;
}

/** Starts counting on every node. */
const startMeters = (nodes: Node[]) => nodes.forEach((n) => n.child.kill('SIGUSR2'));

/** The nodes' CPU time per request since startMeters, over all of them (weighted by their requests). */
async function readMeters(nodes: Node[]): Promise<number> {
  const before = nodes.map((n) => n.reports.length);
  for (const n of nodes) n.child.kill('SIGUSR1');
  const deadline = Date.now() + 10_000;
  while (nodes.some((n, i) => n.reports.length === before[i])) {
    if (Date.now() > deadline) throw new Error('a node did not report its CPU time');
    await new Promise((r) => setTimeout(r, 20));
  }
  let cpu = 0;
  let requests = 0;
  for (const n of nodes) {
    const [us, count] = n.reports.at(-1)!.split(' ').map(Number) as [number, number];
    cpu += us * count;
    requests += count;
  }
  return cpu / Math.max(1, requests);
}

interface Figures {
  webhook: Load & { cpu: number };
  /** The PostgreSQL server's CPU µs per accepted webhook alert: this database's backends, and the shared writers. */
  pgServer?: { backendsUsPerAlert: number; auxiliaryUsPerAlert: number };
  pageFirst: Load & { cpu: number };
  channels: Load;
  stored: number;
  /** The engine's floor on the same database, after the service stopped (one node only). */
  floor?: { webhook: Load & { cpu: number; serverUs?: number }; page: Load & { cpu: number } };
}

/** One configuration: `nodes` nodes on `env`'s database; the webhook under load, then reads of what it stored. */
async function measure(env: Record<string, string>, nodeCount: number): Promise<Figures> {
  const first = await startNode({ ...env, BENCH_SETUP: '1' });
  const nodes = [first, ...(await Promise.all(Array.from({ length: nodeCount - 1 }, () => startNode(env))))];
  let result: Figures;
  try {
    const hook = /TOKEN (\S+)/.exec(first.banner)![1]!;
    const token = /API (\S+)/.exec(first.banner)![1]!;
    const urls = nodes.map((n) => n.url);
    const post = { url: urls, method: 'POST' as const, path: `/api/webhook/${hook}`, body: WEBHOOK_PAYLOAD, connections: CONNECTIONS, expectStatus: 201 };
    await load({ ...post, seconds: WARM_UP_SECONDS });
    const pgBefore = env.DATABASE_URL ? await samplePgServerCpu(env.DATABASE_URL) : undefined;
    startMeters(nodes);
    const webhook = await load({ ...post, seconds: SECONDS });
    const cpu = await readMeters(nodes);
    const pgAfter = pgBefore ? await samplePgServerCpu(env.DATABASE_URL!) : undefined;
    const spent = pgBefore && pgAfter ? pgCpuSpent(pgBefore, pgAfter) : undefined;
    const pgServer = spent && { backendsUsPerAlert: spent.backendsUs / webhook.requests, auxiliaryUsPerAlert: spent.auxiliaryUs / webhook.requests };

    // The reads measure a database in its steady state: autovacuum analyzes a table this busy within
    // a minute in service, and without statistics the planner takes the fresh `alerts` table for a
    // few rows (a bitmap scan and a sort of the whole channel instead of the index's first 50).
    if (env.DATABASE_URL) await analyze(env.DATABASE_URL);
    const get = (p: string) => ({ url: urls, method: 'GET' as const, path: p, headers: { authorization: `Bearer ${token}` }, connections: READ_CONNECTIONS, expectStatus: 200 });
    const page = get('/api/channels/bench/alerts?limit=50');
    await load({ ...page, seconds: WARM_UP_SECONDS });
    startMeters(nodes);
    const pageLoad = await load({ ...page, seconds: SECONDS / 2 });
    const pageFirst = { ...pageLoad, cpu: await readMeters(nodes) };
    const channels = await load({ ...get('/api/channels'), seconds: SECONDS / 2 });
    const listed = (await (await fetch(`${first.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { _count: { alerts: number } }[];
    result = { webhook: { ...webhook, cpu }, pgServer, pageFirst, channels, stored: listed[0]!._count.alerts };
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
  return nodeCount === 1 ? { ...result, floor: await measureFloor(env) } : result;
}

/**
 * The engine's floor (bench/servers/engine-floor.ts) on the database the service just filled, with
 * the same loads: the webhook's body into one narrow INSERT per request, and the channel's newest
 * 50 alerts as JSON. What the service's figure cannot beat on this machine, engine for engine.
 */
async function measureFloor(env: Record<string, string>): Promise<NonNullable<Figures['floor']>> {
  const node = await startNode(env, FLOOR_SCRIPT);
  try {
    const post = { url: node.url, method: 'POST' as const, path: '/api/webhook/floor', body: WEBHOOK_PAYLOAD, connections: CONNECTIONS, expectStatus: 201 };
    await load({ ...post, seconds: WARM_UP_SECONDS });
    const pgBefore = env.DATABASE_URL ? await samplePgServerCpu(env.DATABASE_URL) : undefined;
    startMeters([node]);
    const webhook = await load({ ...post, seconds: SECONDS });
    const webhookCpu = await readMeters([node]);
    const pgAfter = pgBefore ? await samplePgServerCpu(env.DATABASE_URL!) : undefined;
    const serverUs = pgBefore && pgAfter ? pgCpuSpent(pgBefore, pgAfter).backendsUs / webhook.requests : undefined;
    const get = { url: node.url, method: 'GET' as const, path: '/page', connections: READ_CONNECTIONS, expectStatus: 200 };
    await load({ ...get, seconds: WARM_UP_SECONDS });
    startMeters([node]);
    const page = await load({ ...get, seconds: SECONDS / 2 });
    return { webhook: { ...webhook, cpu: webhookCpu, serverUs }, page: { ...page, cpu: await readMeters([node]) } };
  } finally {
    await node.stop();
  }
}

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? a / b : undefined);

async function analyze(url: string): Promise<void> {
  await pgAdmin(url, 'ANALYZE');
}

async function onSqlite(): Promise<Figures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-sqlite-'));
  try {
    return await measure({ DATA_DIR: dir }, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The median (nearest rank, as every percentile of the benches: of two, the lower). */
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

/** Each numeric figure the median of the rounds' (nested objects leaf by leaf; anything else from the first round). */
function medianOf<T>(xs: T[]): T {
  const first = xs[0];
  if (typeof first === 'number') return median(xs as number[]) as T;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return first as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(first)) out[key] = medianOf(xs.map((x) => (x as Record<string, unknown>)[key]));
  return out as T;
}

async function onPostgres(serverUrl: string, nodeCount: number): Promise<Figures> {
  const db = await freshBenchDatabase(serverUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-pg-'));
  try {
    return await measure({ DATABASE_URL: db.url, DATA_DIR: dir, MEDIA_DIR: path.join(dir, 'media') }, nodeCount);
  } finally {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function clusterBench(): Promise<string> {
  const title = `### Cluster mode: webhook and read API on PostgreSQL, one and two nodes, beside SQLite`;
  if (!DATABASE_URL) {
    // Named in --json too, so a tracking script does not read missing figures as a clean run.
    emitResult({ clusterSkipped: 1 });
    return `${title}\n\nSkipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server where the user may create databases, e.g. BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- cluster`;
  }
  const rounds: { sqlite: Figures; pg1: Figures }[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push({ sqlite: await onSqlite(), pg1: await onPostgres(DATABASE_URL, 1) });
  const sqlite = medianOf(rounds.map((r) => r.sqlite));
  const pg1 = medianOf(rounds.map((r) => r.pg1));
  const pg2 = await onPostgres(DATABASE_URL, 2);
  /** A ratio of two configurations: the median of each round's own ratio. */
  const roundRatio = (f: (x: Figures) => number | undefined) => median(rounds.map((r) => ratio(f(r.pg1), f(r.sqlite))).filter((v): v is number => v !== undefined));

  emitResult({
    sqliteWebhookReqPerSec: sqlite.webhook.rps,
    sqliteWebhookCpuUsPerReq: sqlite.webhook.cpu,
    sqliteWebhookP99Ms: sqlite.webhook.p99,
    sqlitePageFirstP99Ms: sqlite.pageFirst.p99,
    sqlitePageFirstReqPerSec: sqlite.pageFirst.rps,
    sqliteChannelsP99Ms: sqlite.channels.p99,
    pgWebhookReqPerSec1Node: pg1.webhook.rps,
    pgWebhookCpuUsPerReq1Node: pg1.webhook.cpu,
    pgWebhookP99Ms1Node: pg1.webhook.p99,
    pgPageFirstP99Ms: pg1.pageFirst.p99,
    pgPageFirstReqPerSec1Node: pg1.pageFirst.rps,
    sqlitePageFirstCpuUsPerReq: sqlite.pageFirst.cpu,
    pgPageFirstCpuUsPerReq1Node: pg1.pageFirst.cpu,
    pgChannelsP99Ms: pg1.channels.p99,
    // The issue-31 figures, each with its same-run baseline above (sqlite…).
    clusterRounds: ROUNDS,
    pgWebhookToSqliteRatio: roundRatio((f) => f.webhook.rps),
    pgWebhookCpuToSqliteRatio: roundRatio((f) => f.webhook.cpu),
    pgPageFirstToSqliteRatio: roundRatio((f) => f.pageFirst.rps),
    pgServerCpuUsPerAlert: pg1.pgServer?.backendsUsPerAlert,
    pgServerSharedWritersCpuUsPerAlert: pg1.pgServer?.auxiliaryUsPerAlert,
    // The engines' floors (engine-floor.ts), same run: how far each figure above could go here.
    sqliteFloorWebhookReqPerSec: sqlite.floor?.webhook.rps,
    sqliteFloorWebhookCpuUsPerReq: sqlite.floor?.webhook.cpu,
    pgFloorWebhookReqPerSec: pg1.floor?.webhook.rps,
    pgFloorWebhookCpuUsPerReq: pg1.floor?.webhook.cpu,
    pgFloorWebhookServerCpuUsPerAlert: pg1.floor?.webhook.serverUs,
    pgFloorWebhookToSqliteRatio: roundRatio((f) => f.floor?.webhook.rps),
    sqliteFloorPageReqPerSec: sqlite.floor?.page.rps,
    sqliteFloorPageCpuUsPerReq: sqlite.floor?.page.cpu,
    pgFloorPageReqPerSec: pg1.floor?.page.rps,
    pgFloorPageCpuUsPerReq: pg1.floor?.page.cpu,
    pgFloorPageToSqliteRatio: roundRatio((f) => f.floor?.page.rps),
    pgWebhookReqPerSec2Nodes: pg2.webhook.rps,
    pgWebhookCpuUsPerReq2Nodes: pg2.webhook.cpu,
    pgWebhookP99Ms2Nodes: pg2.webhook.p99,
    pgPageFirstP99Ms2Nodes: pg2.pageFirst.p99,
    pgPageFirstReqPerSec2Nodes: pg2.pageFirst.rps,
    pgChannelsP99Ms2Nodes: pg2.channels.p99,
  });

  const rows: [string, Figures][] = [
    ['SQLite, one process', sqlite],
    ['PostgreSQL, one node', pg1],
    ['PostgreSQL, two nodes (connections split evenly)', pg2],
  ];
  const errors = (f: Figures) => f.webhook.errors + f.pageFirst.errors + f.channels.errors;
  return [
    title,
    '',
    `Webhook: ${CONNECTIONS} connections, ${SECONDS} s, JSON POST of ${WEBHOOK_PAYLOAD.length} bytes over loopback, 201 after COMMIT. Reads: ${READ_CONNECTIONS} connections, ${SECONDS / 2} s each, over the alerts the webhook phase stored (first page of 50; the channel list with unread counts). Node CPU excludes the database server's.`,
    '',
    '| configuration | webhook req/s | webhook p50 / p99 ms | node CPU µs per webhook | first page req/s | first page p50 / p99 ms | node CPU µs per page | channel list p50 / p99 ms | alerts stored | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      ([name, f]) =>
        `| ${name} | ${Math.round(f.webhook.rps).toLocaleString('en')} | ${ms(f.webhook.p50)} / ${ms(f.webhook.p99)} | ${f.webhook.cpu.toFixed(0)} | ${Math.round(f.pageFirst.rps).toLocaleString('en')} | ${ms(f.pageFirst.p50)} / ${ms(f.pageFirst.p99)} | ${f.pageFirst.cpu.toFixed(0)} | ${ms(f.channels.p50)} / ${ms(f.channels.p99)} | ${f.stored.toLocaleString('en')} | ${errors(f)} |`,
    ),
    '',
    ...(ROUNDS > 1 ? [`SQLite and PostgreSQL one node: the median of ${ROUNDS} rounds, alternating. ${roundsLine(rounds)}`, ''] : []),
    `PostgreSQL, one node: webhook ${(100 * roundRatio((f) => f.webhook.rps)).toFixed(0)} % of SQLite's req/s (node CPU ${roundRatio((f) => f.webhook.cpu).toFixed(2)}x SQLite's); first page ${(100 * roundRatio((f) => f.pageFirst.rps)).toFixed(0)} % of SQLite's req/s. ` +
      (pg1.pgServer
        ? `The PostgreSQL server spent **${pg1.pgServer.backendsUsPerAlert.toFixed(0)} µs of CPU per accepted alert** in the database's backends (from /proc, before and after the webhook phase), plus ${pg1.pgServer.auxiliaryUsPerAlert.toFixed(0)} µs in the WAL writer, background writer and checkpointer (shared with anything else on the server).`
        : 'The PostgreSQL server is not on this machine: its CPU per alert is not measured.'),
    '',
    ...floorTable(sqlite, pg1, { webhook: roundRatio((f) => f.floor?.webhook.rps), page: roundRatio((f) => f.floor?.page.rps) }),
    `Load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} (${os.cpus().length} cores).`,
  ].join('\n');
}

/** Each round's own figures, in order: what the medians hide on a noisy machine. */
function roundsLine(rounds: { sqlite: Figures; pg1: Figures }[]): string {
  const each = (f: (r: { sqlite: Figures; pg1: Figures }) => number, digits: number) => rounds.map((r) => f(r).toFixed(digits)).join(' / ');
  return [
    `Per round: webhook PostgreSQL ÷ SQLite ${each((r) => r.pg1.webhook.rps / r.sqlite.webhook.rps, 2)}`,
    `first page ${each((r) => r.pg1.pageFirst.rps / r.sqlite.pageFirst.rps, 2)}`,
    `PostgreSQL server µs per alert ${each((r) => r.pg1.pgServer?.backendsUsPerAlert ?? NaN, 0)}`,
    `the load generator's µs per webhook, SQLite ${each((r) => r.sqlite.webhook.clientCpu, 0)} and PostgreSQL ${each((r) => r.pg1.webhook.clientCpu, 0)} (its work per request is fixed: a higher figure means a slower machine that minute).`,
  ].join('; ');
}

/** The engines' floors beside the service, same run and loads (bench/servers/engine-floor.ts). */
function floorTable(sqlite: Figures, pg1: Figures, pgToSqlite: { webhook: number; page: number }): string[] {
  const s = sqlite.floor;
  const p = pg1.floor;
  if (!s || !p) return [];
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(0)} %`;
  const cells = (f: Load & { cpu: number }) => `${Math.round(f.rps).toLocaleString('en')} | ${ms(f.p50)} / ${ms(f.p99)} | ${f.cpu.toFixed(0)}`;
  return [
    `#### The engines' floors: the same loads on the same databases, with nothing but the engine's own work`,
    '',
    "Webhook floor: the service's payload schema, then one narrow INSERT per request through the engine's group commit (PostgreSQL: one `unnest` INSERT per batch in autocommit, a single round trip). Page floor: the channel's newest 50 alerts, every column a page reads, as JSON, one prepared statement. No token, rate limit, outbox, change log or read state.",
    '',
    '| request | engine | req/s | p50 / p99 ms | node CPU µs per request | PostgreSQL vs SQLite | errors |',
    '|---|---|---|---|---|---|---|',
    `| webhook floor | SQLite | ${cells(s.webhook)} | | ${s.webhook.errors} |`,
    `| webhook floor | PostgreSQL | ${cells(p.webhook)} | ${(100 * pgToSqlite.webhook).toFixed(0)} % (the service's goal: ≥ 50 %) | ${p.webhook.errors} |`,
    `| page floor | SQLite | ${cells(s.page)} | | ${s.page.errors} |`,
    `| page floor | PostgreSQL | ${cells(p.page)} | ${(100 * pgToSqlite.page).toFixed(0)} % (the service's goal: ≥ 70 %) | ${p.page.errors} |`,
    '',
    ...(p.webhook.serverUs !== undefined ? [`The PostgreSQL server spent ${p.webhook.serverUs.toFixed(0)} µs of CPU per floor row (the service's alert: ${pg1.pgServer?.backendsUsPerAlert.toFixed(0) ?? '?'} µs).`, ''] : []),
    `The service reaches ${pct(sqlite.webhook.rps, s.webhook.rps)} of its floor's webhook rate on SQLite and ${pct(pg1.webhook.rps, p.webhook.rps)} on PostgreSQL; ${pct(sqlite.pageFirst.rps, s.page.rps)} and ${pct(pg1.pageFirst.rps, p.page.rps)} of its page floor.`,
    '',
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await clusterBench());
