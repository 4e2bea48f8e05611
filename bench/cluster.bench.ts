import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, ms, startServerProcess, WEBHOOK_PAYLOAD } from './lib.js';
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

type Load = Awaited<ReturnType<typeof load>>;

type Node = Awaited<ReturnType<typeof startServerProcess>> & { reports: string[] };

async function startNode(env: Record<string, string>): Promise<Node> {
  const server = await startServerProcess(NODE_SCRIPT, env);
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
  pageFirst: Load;
  channels: Load;
  stored: number;
}

/** One configuration: `nodes` nodes on `env`'s database; the webhook under load, then reads of what it stored. */
async function measure(env: Record<string, string>, nodeCount: number): Promise<Figures> {
  const first = await startNode({ ...env, BENCH_SETUP: '1' });
  const nodes = [first, ...(await Promise.all(Array.from({ length: nodeCount - 1 }, () => startNode(env))))];
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
    const pageFirst = await load({ ...page, seconds: SECONDS / 2 });
    const channels = await load({ ...get('/api/channels'), seconds: SECONDS / 2 });
    const listed = (await (await fetch(`${first.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { _count: { alerts: number } }[];
    return { webhook: { ...webhook, cpu }, pgServer, pageFirst, channels, stored: listed[0]!._count.alerts };
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

async function analyze(url: string): Promise<void> {
  await pgAdmin(url, 'ANALYZE');
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-sqlite-'));
  let sqlite: Figures;
  try {
    sqlite = await measure({ DATA_DIR: dir }, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const pg1 = await onPostgres(DATABASE_URL, 1);
  const pg2 = await onPostgres(DATABASE_URL, 2);

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
    pgChannelsP99Ms: pg1.channels.p99,
    // The issue-31 figures, each with its same-run baseline above (sqlite…).
    pgWebhookToSqliteRatio: pg1.webhook.rps / sqlite.webhook.rps,
    pgWebhookCpuToSqliteRatio: pg1.webhook.cpu / sqlite.webhook.cpu,
    pgPageFirstToSqliteRatio: pg1.pageFirst.rps / sqlite.pageFirst.rps,
    pgServerCpuUsPerAlert: pg1.pgServer?.backendsUsPerAlert,
    pgServerSharedWritersCpuUsPerAlert: pg1.pgServer?.auxiliaryUsPerAlert,
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
    '| configuration | webhook req/s | webhook p50 / p99 ms | node CPU µs per webhook | first page req/s | first page p50 / p99 ms | channel list p50 / p99 ms | alerts stored | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      ([name, f]) =>
        `| ${name} | ${Math.round(f.webhook.rps).toLocaleString('en')} | ${ms(f.webhook.p50)} / ${ms(f.webhook.p99)} | ${f.webhook.cpu.toFixed(0)} | ${Math.round(f.pageFirst.rps).toLocaleString('en')} | ${ms(f.pageFirst.p50)} / ${ms(f.pageFirst.p99)} | ${ms(f.channels.p50)} / ${ms(f.channels.p99)} | ${f.stored.toLocaleString('en')} | ${errors(f)} |`,
    ),
    '',
    `PostgreSQL, one node: webhook ${(100 * pg1.webhook.rps / sqlite.webhook.rps).toFixed(0)} % of SQLite's req/s (node CPU ${(pg1.webhook.cpu / sqlite.webhook.cpu).toFixed(2)}x SQLite's); first page ${(100 * pg1.pageFirst.rps / sqlite.pageFirst.rps).toFixed(0)} % of SQLite's req/s. ` +
      (pg1.pgServer
        ? `The PostgreSQL server spent **${pg1.pgServer.backendsUsPerAlert.toFixed(0)} µs of CPU per accepted alert** in the database's backends (from /proc, before and after the webhook phase), plus ${pg1.pgServer.auxiliaryUsPerAlert.toFixed(0)} µs in the WAL writer, background writer and checkpointer (shared with anything else on the server).`
        : 'The PostgreSQL server is not on this machine: its CPU per alert is not measured.'),
    '',
    `Load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} (${os.cpus().length} cores).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await clusterBench());
