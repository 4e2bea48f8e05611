import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { SqliteAlertStore } from '../src/db/sqlite/alert-store/index.js';
import { openDb } from '../src/db/sqlite/connection.js';
import { alerts } from '../src/db/shared/schema/alerts.js';
import { WriteBatcher } from '../src/db/sqlite/write-batcher.js';
import type { NewStandardAlert } from '../src/domain/alert-store.js';
import { IdGenerator } from '../src/lib/ids.js';

/**
 * In-process micro-bench of the hot webhook insert (`npx tsx bench/store-insert.bench.ts`):
 * 1. the alert INSERT alone, 100 rows per transaction: typed better-sqlite3
 *    positional statement vs drizzle's prepared insert with placeholders;
 * 2. the whole store unit (alert + outbox + event + usage) through the group
 *    commit: the store's Promise-returning insertAlert vs the same statements
 *    queued as one synchronous batcher unit, to price the Promise boundary.
 */
const N = Number(process.env.N ?? 20_000);
const ROUNDS = 5;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-store-bench-'));

function setup(name: string) {
  const db = openDb(path.join(dir, `${name}.db`));
  db.sqlite.prepare("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'w', 0)").run();
  db.sqlite
    .prepare("INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES ('ch', 'ws', 'c', 'c', '', 0, 't', 0)")
    .run();
  return db;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const content = {
  title: 'Deploy finished', level: 'SUCCESS' as const, emoji: '🚀', message: 'All checks passed', fieldsJson: '[{"label":"a","value":"1","inline":true}]',
  linkUrl: 'https://ci.example.com/runs/4242', linkText: null, source: 'github-actions', metadataJson: null, actorJson: '{"email":"jane@acme.com"}',
  workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null,
};

function insertOnly() {
  const raw = setup('raw');
  const ids = new IdGenerator(() => Date.now());
  const stmt = raw.sqlite.prepare<[string, string, string, string, string, string, string, string, string, string, string, number, number]>(
    `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, source, actor_json, activity_key, created_at, updated_at)
     VALUES (?, ?, 'standard', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const rawTx = raw.sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++) {
      const id = ids.next('alt');
      stmt.run(id, 'ch', content.title, content.level, content.emoji, content.message, content.fieldsJson, content.linkUrl, content.source, content.actorJson, id, 1, 1);
    }
  });
  const dz = setup('drizzle');
  const prepared = drizzle(dz.sqlite)
    .insert(alerts)
    .values({
      id: sql.placeholder('id'), channelId: 'ch', kind: 'standard', title: sql.placeholder('title'), level: sql.placeholder('level'),
      emoji: sql.placeholder('emoji'), message: sql.placeholder('message'), fieldsJson: sql.placeholder('fieldsJson'), linkUrl: sql.placeholder('linkUrl'),
      source: sql.placeholder('source'), actorJson: sql.placeholder('actorJson'), activityKey: sql.placeholder('id'), createdAt: 1, updatedAt: 1,
    })
    .prepare();
  const dzTx = dz.sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++) prepared.run({ id: ids.next('alt'), ...content });
  });
  const time = (fn: (n: number) => void) => {
    const t = performance.now();
    for (let i = 0; i < N; i += 100) fn(100);
    return ((performance.now() - t) * 1000) / N;
  };
  time(rawTx); time(dzTx); // warm-up
  const raws: number[] = [];
  const dzs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    raws.push(time(rawTx));
    dzs.push(time(dzTx));
  }
  return { raw: median(raws), drizzle: median(dzs) };
}

async function promiseBoundary() {
  const db = setup('unit');
  const batcher = new WriteBatcher(db.sqlite);
  const store = new SqliteAlertStore(db.sqlite, batcher);
  const ids = new IdGenerator(() => Date.now());
  const write = (): NewStandardAlert => ({ alertId: ids.next('alt'), channelId: 'ch', workspaceId: 'ws', content, attachments: [], notify: 'alert.created', now: Date.now() });
  // The same unit as insertAlert, but without the store's Promise-returning method around it.
  const unit = (store.webhook as unknown as { insertUnit(a: NewStandardAlert): unknown }).insertUnit.bind(store.webhook);
  const round = async (viaStore: boolean) => {
    const t = performance.now();
    // 50 concurrent requests per turn, as with 50 connections.
    for (let i = 0; i < N; i += 50) {
      const batch: Promise<unknown>[] = [];
      for (let j = 0; j < 50; j++) batch.push(viaStore ? store.webhook.insertAlert(write()) : batcher.run(() => unit(write())));
      await Promise.all(batch);
    }
    return ((performance.now() - t) * 1000) / N;
  };
  await round(true); await round(false); // warm-up
  // Interleaved, so both see the same table size on average.
  const viaStore: number[] = [];
  const direct: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    viaStore.push(await round(true));
    direct.push(await round(false));
  }
  return { store: median(viaStore), direct: median(direct) };
}

const a = insertOnly();
const b = await promiseBoundary();
console.log(`alert INSERT, 100 per transaction: typed better-sqlite3 ${a.raw.toFixed(2)} µs/row, drizzle prepared ${a.drizzle.toFixed(2)} µs/row`);
console.log(`whole unit through the group commit: store.insertAlert ${b.store.toFixed(2)} µs/alert, same unit queued directly ${b.direct.toFixed(2)} µs/alert`);
fs.rmSync(dir, { recursive: true, force: true });
