import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, startServerProcess, WEBHOOK_PAYLOAD } from './lib.js';
import { freshBenchDatabase, pgAdmin } from './lib/pg-database.js';
import { pgCpuSpent, samplePgServerCpu } from './lib/pg-server-cpu.js';
import { emitResult, QUICK } from './lib/result.js';
import { searchFunctionsBefore0023Sql } from './lib/search-functions-before.js';

/**
 * What each part of the `alerts` table costs the PostgreSQL server per stored alert (issue 31: "the
 * search vector, triggers and indexes priced one by one"). Every variant gets a fresh database with
 * the full schema, then one part taken away (or replaced), then the same webhook load through one
 * real node (bench/servers/cluster-node.ts); the server's backends' CPU time (/proc, before and
 * after) divided by the alerts stored is the figure. The full schema runs first and last, so the
 * spread between those two runs says how far apart two identical runs land on this machine.
 *
 * Needs BENCH_DATABASE_URL (or TEST_DATABASE_URL) on this machine's server.
 */
const DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1 : 5));
const CONNECTIONS = 20;

interface Variant {
  readonly key: string;
  readonly name: string;
  /** Run after the service created its schema and the bench channel, before the load. */
  readonly sql?: string;
}

const VARIANTS: Variant[] = [
  { key: 'Full', name: 'full schema (baseline)' },
  { key: 'NoSearchVector', name: 'without the search vector (its generated column and GIN index)', sql: 'ALTER TABLE alerts DROP COLUMN search_vector' },
  { key: 'NoGin', name: 'without the GIN index only (the vector still computed)', sql: 'DROP INDEX alerts_search_idx' },
  {
    key: 'JsonNoSubtransaction',
    name: 'the vector with JSON parsed without an exception block (no subtransaction per JSON column)',
    sql: `CREATE OR REPLACE FUNCTION alertbridge_search_json(t text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT RETURN t::jsonb`,
  },
  {
    key: 'SqlSearchFunctions',
    name: 'the search vector\'s functions in SQL, as before migration 0023 (planned again in every statement)',
    sql: searchFunctionsBefore0023Sql(),
  },
  { key: 'NoLevelIndex', name: 'without alerts_channel_level_id_idx', sql: 'DROP INDEX alerts_channel_level_id_idx' },
  { key: 'NoStatusIndex', name: 'without alerts_channel_status_id_idx', sql: 'DROP INDEX alerts_channel_status_id_idx' },
  { key: 'NoSearchKeyIndex', name: 'without alerts_search_key_uq (the search order\'s unique key)', sql: 'DROP INDEX alerts_search_key_uq' },
  { key: 'NoCountTriggers', name: 'without the channel count triggers', sql: 'DROP TRIGGER alerts_count_insert ON alerts; DROP TRIGGER alerts_count_delete ON alerts' },
  { key: 'Full2', name: 'full schema again (the spread of two identical runs)' },
];

/**
 * Every variant, full schema first and last; BENCH_QUICK (the test of the plumbing) the two
 * baselines and one variant; BENCH_PGCOST_VARIANTS a comma-separated list of keys in the order to
 * run them, repeats allowed, to alternate two variants on a noisy machine (e.g. Full,SqlSearchFunctions,Full,SqlSearchFunctions).
 */
function chosenVariants(): Variant[] {
  const only = process.env.BENCH_PGCOST_VARIANTS?.split(',').filter(Boolean);
  if (only) {
    return only.map((key) => {
      const v = VARIANTS.find((x) => x.key === key);
      if (!v) throw new Error(`BENCH_PGCOST_VARIANTS: no variant ${key} (${VARIANTS.map((x) => x.key).join(', ')})`);
      return v;
    });
  }
  return QUICK ? VARIANTS.filter((v) => ['Full', 'NoSearchVector', 'Full2'].includes(v.key)) : VARIANTS;
}

async function price(serverUrl: string, v: Variant): Promise<{ usPerAlert: number; alerts: number }> {
  const db = await freshBenchDatabase(serverUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-pgcost-'));
  const node = await startServerProcess('bench/servers/cluster-node.ts', { DATABASE_URL: db.url, DATA_DIR: dir, MEDIA_DIR: path.join(dir, 'media'), BENCH_SETUP: '1' });
  try {
    if (v.sql) await pgAdmin(db.url, v.sql);
    const hook = /TOKEN (\S+)/.exec(node.banner)![1]!;
    const post = { url: node.url, method: 'POST' as const, path: `/api/webhook/${hook}`, body: WEBHOOK_PAYLOAD, connections: CONNECTIONS, expectStatus: 201 };
    await load({ ...post, seconds: QUICK ? 0.3 : 1 });
    const before = await samplePgServerCpu(db.url);
    const run = await load({ ...post, seconds: SECONDS });
    const after = await samplePgServerCpu(db.url);
    if (!before || !after) throw new Error('the PostgreSQL server is not on this machine: its CPU time cannot be read');
    return { usPerAlert: pgCpuSpent(before, after).backendsUs / Math.max(1, run.requests), alerts: run.requests };
  } finally {
    await node.stop();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function pgCostBench(): Promise<string> {
  const title = '### PostgreSQL server CPU per stored alert, priced part by part';
  if (!DATABASE_URL) {
    emitResult({ pgCostSkipped: 1 });
    return `${title}\n\nSkipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to this machine's PostgreSQL server.`;
  }
  const rows: { v: Variant; usPerAlert: number; alerts: number }[] = [];
  for (const v of chosenVariants()) rows.push({ v, ...(await price(DATABASE_URL, v)) });
  const baselines = rows.filter((r) => !r.v.sql);
  const full = baselines.reduce((sum, r) => sum + r.usPerAlert, 0) / Math.max(1, baselines.length);
  // A variant run several times (BENCH_PGCOST_VARIANTS) reports its mean.
  const byKey = new Map<string, number[]>();
  for (const r of rows) byKey.set(r.v.key, [...(byKey.get(r.v.key) ?? []), r.usPerAlert]);
  emitResult(Object.fromEntries([...byKey].map(([key, us]) => [`pgCostUsPerAlert${key}`, us.reduce((a, b) => a + b, 0) / us.length])));
  return [
    title,
    '',
    `Each row: a fresh database, one change to the full schema, then ${SECONDS} s of webhook POSTs (${CONNECTIONS} connections, one node); the database's backends' CPU time divided by the alerts stored. "Saved" is against the mean of the full-schema runs (${full.toFixed(0)} µs).`,
    '',
    '| variant | server CPU µs per alert | saved µs | alerts stored |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.v.name} | ${r.usPerAlert.toFixed(0)} | ${r.v.sql ? (full - r.usPerAlert).toFixed(0) : ''} | ${r.alerts.toLocaleString('en')} |`),
    '',
    `Load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} (${os.cpus().length} cores).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await pgCostBench());
