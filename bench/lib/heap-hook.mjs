import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';

/**
 * Bench-only preload (`node --import ./bench/lib/heap-hook.mjs dist/main.js`):
 * lets bench/memory.bench.ts look inside the real service, run as `npm start`
 * runs it (compiled JavaScript, no TypeScript loader), without any bench code
 * in src/. Plain JavaScript on purpose: a loader for a .ts hook would itself
 * add tens of MB to the RSS being measured.
 *
 * On SIGUSR2 it prints ONE line on stderr, `MEMORY {json}`: process.memoryUsage()
 * and V8's heap spaces (so the bench can split RSS into JS heap, young
 * generation, external buffers and native memory); when HEAP_SNAPSHOT_DIR is
 * set it first writes a heap snapshot there and names it in the line.
 * A global.gc() (only with --expose-gc) runs first when HEAP_HOOK_GC=1, so a
 * snapshot and the figures show what is retained, not what is merely uncollected.
 *
 * BENCH_SQLITE_CACHE_KIB overrides the `cache_size` pragma the service sets
 * (an experiment knob: how much of RSS is SQLite's page cache).
 */
let shot = 0;
process.on('SIGUSR2', () => {
  if (process.env.HEAP_HOOK_GC === '1' && typeof globalThis.gc === 'function') globalThis.gc();
  let snapshot;
  if (process.env.HEAP_SNAPSHOT_DIR) {
    snapshot = v8.writeHeapSnapshot(path.join(process.env.HEAP_SNAPSHOT_DIR, `${process.pid}-${++shot}.heapsnapshot`));
  }
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  process.stderr.write(`MEMORY ${JSON.stringify({ usage: process.memoryUsage(), spaces, snapshot })}\n`);
});

const cacheKib = process.env.BENCH_SQLITE_CACHE_KIB;
if (cacheKib) {
  // Same CommonJS module instance the service imports, so the patch applies to its connection.
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const original = Database.prototype.pragma;
  Database.prototype.pragma = function (source, options) {
    return original.call(this, /^\s*cache_size\s*=/.test(source) ? `cache_size = -${cacheKib}` : source, options);
  };
}
