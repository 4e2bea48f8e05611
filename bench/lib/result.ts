import fs from 'node:fs';

/**
 * Machine-readable figures for `npm run bench -- --json`: a suite records its
 * figures here and bench/run.ts (which sets BENCH_RESULT_FILE per suite) merges
 * them into one JSON object. Names are stable and carry their unit
 * (`…Ms`, `…Mb`, `…UsPerReq`, `…PerSec`); a suite run on its own just skips this.
 */
export function emitResult(figures: Record<string, number | undefined>): void {
  const file = process.env.BENCH_RESULT_FILE;
  if (!file) return;
  const clean: Record<string, number> = {};
  for (const [k, v] of Object.entries(figures)) if (v !== undefined && Number.isFinite(v)) clean[k] = Number(v.toFixed(3));
  let previous: Record<string, number> = {};
  try {
    previous = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    // first figures of this suite
  }
  fs.writeFileSync(file, JSON.stringify({ ...previous, ...clean }));
}

/** `--name value` or `--name=value` from this process's argv (run.ts forwards its flags to every suite). */
export function argValue(name: string): string | undefined {
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1];
    if (argv[i]!.startsWith(`--${name}=`)) return argv[i]!.slice(name.length + 3);
  }
  return undefined;
}

export const hasFlag = (name: string) => process.argv.includes(`--${name}`);
export const QUICK = process.env.BENCH_QUICK === '1';

/**
 * The node flags of `npm start` (package.json: `node <flags> dist/main.js`), so
 * the servers the bench starts run with the settings production runs with
 * (e.g. `--max-semi-space-size`). `BENCH_NODE_ARGS` adds to them.
 */
export function startScriptNodeArgs(): string[] {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const m = /^node (.*?)\s*dist\/main\.js$/.exec(pkg.scripts.start);
  if (!m) throw new Error(`package.json start script is not "node <flags> dist/main.js": ${pkg.scripts.start}`);
  // The staleness check (scripts/build-if-stale.mjs) is npm start's, not the service's: the bench builds first.
  return m[1]!.replace('--import ./scripts/build-if-stale.mjs', '').split(' ').filter(Boolean);
}
