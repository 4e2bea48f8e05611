import fs from 'node:fs';

/**
 * Splits a V8 CPU profile (what bench/servers/cpu-meter.ts writes) into the stages of a webhook
 * request, by where each sample's function lives. A native function (no script: a better-sqlite3
 * binding, JSON.parse, a crypto call) counts for the stage of the script that called it, so the
 * SQLite engine's own work lands in "SQLite", not in "native".
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** [where, the key in --json (webhookStage<Key>Us), the name in the report] */
const STAGES: [RegExp, string, string][] = [
  [/\/node_modules\/better-sqlite3\//, 'Sqlite', 'SQLite: better-sqlite3 and the engine'],
  [/\/node_modules\/@hono\/node-server\//, 'NodeServer', 'HTTP adapter: @hono/node-server'],
  [/\/node_modules\/hono\//, 'Hono', 'Hono: routing, context, middleware'],
  [/\/node_modules\/zod\//, 'Zod', 'zod'],
  [/\/node_modules\/pino/, 'Logging', 'logging: pino'],
  [/\/node_modules\//, 'OtherDeps', 'other dependencies'],
  [/^node:(_http|net|internal\/(http|streams|stream_base|net)|stream|events|internal\/webstreams|internal\/deps\/undici)/, 'NodeHttp', 'node: HTTP, sockets, streams'],
  [/^node:/, 'NodeOther', 'node: promises, events, abort signals, timers'],
  [/\/src\/domain\/webhook\//, 'Webhook', 'ours: payload validation and the webhook use case'],
  [/\/src\/http\//, 'OurHttp', 'ours: HTTP layer (routes, middleware, answers)'],
  [/\/src\/db\//, 'Store', 'ours: store (batching, statements, rows)'],
  [/\/src\/lib\//, 'Helpers', 'ours: helpers (ids, time, JSON)'],
  [/\/src\//, 'OurOther', 'ours: other (stream, notify, domain)'],
  [/\/bench\//, 'Bench', 'bench harness (request counter)'],
];

const NAMES = new Map<string, string>([
  ...STAGES.map(([, key, name]): [string, string] => [key, name]),
  ['Gc', 'garbage collection'],
  ['Program', 'V8 and native code outside any script'],
  ['Other', 'other scripts'],
]);

function stageOf(url: string): string | undefined {
  if (!url) return undefined;
  for (const [re, key] of STAGES) if (re.test(url)) return key;
  return 'Other';
}

/** Share of the sampled CPU time per stage (idle excluded), largest first. */
export function cpuStages(profileFile: string): { key: string; name: string; share: number }[] {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageCache = new Map<number, string>();
  const resolve = (id: number): string => {
    const cached = stageCache.get(id);
    if (cached) return cached;
    const n = byId.get(id)!;
    const fn = n.callFrame.functionName;
    let stage: string;
    if (fn === '(garbage collector)') stage = 'Gc';
    else if (fn === '(program)') stage = 'Program';
    else stage = stageOf(n.callFrame.url) ?? (parent.has(id) ? resolve(parent.get(id)!) : 'Program');
    stageCache.set(id, stage);
    return stage;
  };
  const counts = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples) {
    const fn = byId.get(id)!.callFrame.functionName;
    if (fn === '(idle)') continue;
    const stage = resolve(id);
    counts.set(stage, (counts.get(stage) ?? 0) + 1);
    total++;
  }
  return [...counts].map(([key, n]) => ({ key, name: NAMES.get(key)!, share: n / Math.max(1, total) })).sort((a, b) => b.share - a.share);
}
