import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `npm run bench [-- start|read|webhook|discord|search|feed|live|memory|heartbeats|cluster|pgcost] [--json] [suite flags]`: each
 * benchmark runs in its own process (one at a time, so they do not compete for
 * the 2 cores) and prints a markdown section with its figures and the baseline
 * measured in the same run. Flags (`--alerts N`, `--10m`, `--heap-snapshots`)
 * are passed on to every suite. With `--json` the LAST line of stdout is one
 * JSON object holding every suite's figures (stable names, units in the names),
 * collected from the file each suite writes to BENCH_RESULT_FILE.
 */
const SUITES: Record<string, string> = {
  start: 'bench/start.bench.ts',
  read: 'bench/read-api.bench.ts',
  webhook: 'bench/webhook.bench.ts',
  discord: 'bench/discord.bench.ts',
  search: 'bench/search.bench.ts',
  feed: 'bench/feed.bench.ts',
  live: 'bench/live.bench.ts',
  memory: 'bench/memory.bench.ts',
  heartbeats: 'bench/heartbeats.bench.ts',
  // PostgreSQL, one and two nodes, beside SQLite; skipped (saying so) without BENCH_DATABASE_URL or TEST_DATABASE_URL.
  cluster: 'bench/cluster.bench.ts',
  // The PostgreSQL server's CPU per alert with one part of the alerts table taken away at a time.
  pgcost: 'bench/pg-cost.bench.ts',
};
const args = process.argv.slice(2);
const json = args.includes('--json');
const wanted = args.filter((a) => a in SUITES);
const forwarded = args.filter((a) => !(a in SUITES) && a !== '--json');
const names = wanted.length ? wanted : Object.keys(SUITES);

console.log(`## Benchmarks (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version})\n`);
const resultDir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-results-'));
const figures: Record<string, number> = {};
const failedSuites: string[] = [];
try {
  for (const name of names) {
    const resultFile = path.join(resultDir, `${name}.json`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', SUITES[name]!, ...forwarded], { stdio: 'inherit', env: { ...process.env, BENCH_RESULT_FILE: resultFile } });
    if (r.status !== 0) {
      failedSuites.push(name);
      console.error(`bench ${name} failed with exit code ${r.status}`);
    }
    if (fs.existsSync(resultFile)) Object.assign(figures, JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Record<string, number>);
    console.log('');
  }
} finally {
  fs.rmSync(resultDir, { recursive: true, force: true });
}
// A failed suite is named in the object, so a tracking script does not mistake missing figures for a clean run.
if (json) console.log(JSON.stringify(failedSuites.length ? { ...figures, failedSuites } : figures));
process.exitCode = failedSuites.length ? 1 : 0;
