import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Reads a .heapsnapshot (V8's JSON format) and adds up self sizes per
 * "constructor (node type)", the same grouping as Chrome DevTools' Summary
 * view, so two snapshots can be compared without opening DevTools.
 *
 *   npx tsx bench/lib/heap-summary.ts before.heapsnapshot after.heapsnapshot
 */
export interface HeapGroup {
  count: number;
  selfSize: number;
}
export interface HeapSummary {
  total: number;
  groups: Map<string, HeapGroup>;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export function summarizeHeap(file: string): HeapSummary {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const stride = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const typeNames = snap.snapshot.meta.node_types[0];
  const groups = new Map<string, HeapGroup>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = typeNames[snap.nodes[i + typeAt]!]!;
    const size = snap.nodes[i + sizeAt]!;
    // Strings and code are grouped by type only: their "name" is the content.
    const name = type === 'object' || type === 'native' || type === 'closure' ? snap.strings[snap.nodes[i + nameAt]!]! : '';
    const key = name ? `${name} (${type})` : `(${type})`;
    const g = groups.get(key) ?? { count: 0, selfSize: 0 };
    g.count++;
    g.selfSize += size;
    groups.set(key, g);
    total += size;
  }
  return { total, groups };
}

/** Groups ordered by growth in self size, largest first. */
export function diffHeaps(before: HeapSummary, after: HeapSummary) {
  const keys = new Set([...before.groups.keys(), ...after.groups.keys()]);
  return [...keys]
    .map((key) => ({ key, before: before.groups.get(key), after: after.groups.get(key), growth: (after.groups.get(key)?.selfSize ?? 0) - (before.groups.get(key)?.selfSize ?? 0) }))
    .sort((a, b) => b.growth - a.growth);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [a, b] = process.argv.slice(2);
  if (!a) {
    process.stderr.write('usage: npx tsx bench/lib/heap-summary.ts FILE [AFTER_FILE]\n');
    process.exit(2);
  }
  const before = summarizeHeap(a);
  const after = b ? summarizeHeap(b) : before;
  const m = (n: number) => (n / 1024 / 1024).toFixed(2);
  console.log(`total ${m(before.total)} MB${b ? ` → ${m(after.total)} MB` : ''}`);
  for (const d of (b ? diffHeaps(before, after) : diffHeaps({ total: 0, groups: new Map() }, before)).slice(0, 25)) {
    console.log(`${m(d.growth).padStart(8)} MB  ${d.key}  (${d.before?.count ?? 0} → ${d.after?.count ?? 0} objects)`);
  }
}
