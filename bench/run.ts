import { spawnSync } from 'node:child_process';
import os from 'node:os';

/**
 * `npm run bench [-- read|webhook|discord]`: each benchmark runs in its own
 * process (one at a time, so they do not compete for the 2 cores) and prints a
 * markdown section with its figures and the baseline measured in the same run.
 */
const SUITES: Record<string, string> = {
  read: 'bench/read-api.bench.ts',
  webhook: 'bench/webhook.bench.ts',
  discord: 'bench/discord.bench.ts',
  search: 'bench/search.bench.ts',
};
const wanted = process.argv.slice(2).filter((a) => a in SUITES);
const names = wanted.length ? wanted : Object.keys(SUITES);

console.log(`## Benchmarks (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version})\n`);
let failed = false;
for (const name of names) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', SUITES[name]!], { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    failed = true;
    console.error(`bench ${name} failed with exit code ${r.status}`);
  }
  console.log('');
}
process.exitCode = failed ? 1 : 0;
