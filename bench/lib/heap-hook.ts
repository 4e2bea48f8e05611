import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';

/**
 * Bench-only preload (`node --import tsx --import ./bench/lib/heap-hook.ts src/main.ts`):
 * lets bench/memory.bench.ts look inside the real service without any
 * bench code in src/.
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
  const g = globalThis as { gc?: () => void };
  if (process.env.HEAP_HOOK_GC === '1' && g.gc) g.gc();
  let snapshot: string | undefined;
  if (process.env.HEAP_SNAPSHOT_DIR) {
    snapshot = v8.writeHeapSnapshot(path.join(process.env.HEAP_SNAPSHOT_DIR, `${process.pid}-${++shot}.heapsnapshot`));
  }
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  process.stderr.write(`MEMORY ${JSON.stringify({ usage: process.memoryUsage(), spaces, snapshot })}\n`);
});

const cacheKib = process.env.BENCH_SQLITE_CACHE_KIB;
if (cacheKib) {
  // Same CommonJS module instance the service imports, so the patch applies to its connection.
  const Database = createRequire(import.meta.url)('better-sqlite3') as { prototype: { pragma(this: unknown, source: string, options?: unknown): unknown } };
  const original = Database.prototype.pragma;
  Database.prototype.pragma = function (source: string, options?: unknown) {
    return original.call(this, /^\s*cache_size\s*=/.test(source) ? `cache_size = -${cacheKib}` : source, options);
  };
}
