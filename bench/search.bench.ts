import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { SqliteAlertStore } from '../src/db/sqlite/alert-store/index.js';
import { openDb } from '../src/db/sqlite/connection.js';
import { WriteBatcher } from '../src/db/sqlite/write-batcher.js';
import type { NewStandardAlert } from '../src/domain/alert-store.js';
import { createApp } from '../src/http/app.js';
import { IdGenerator } from '../src/lib/ids.js';
import { openServices, sqliteServicesOf } from '../src/services.js';
import { ms, summarize, timeIt } from './lib.js';

/**
 * Search (`npm run bench -- search`):
 * 1. the webhook's store unit per alert with the index written in the
 *    transaction (as before migration 0011), after the commit (the indexer),
 *    and with no index, in-process, interleaved rounds: what indexing costs;
 * 2. GET /api/search on 1,000,000 alerts (seeded in SQL from a recursive CTE
 *    over a vocabulary with a skewed word frequency), through the whole app
 *    in-process, for one- and two-word queries, a rare word and a prefix.
 */
const ALERTS = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const ITER = Number(process.env.BENCH_ITER ?? 1000);
const N = Number(process.env.N ?? 20_000);
const ROUNDS = 5;

/** A product team's words. Early words are drawn far more often (see WORD below): "deploy" is common, the last ones rare. */
const VOCABULARY = (
  'deploy api failed error passed build release checkout payment invoice signup user customer order refund timeout database ' +
  'latency worker queue retry cluster region frankfurt virginia oregon tokyo mobile web ios android backend frontend staging ' +
  'production rollback migration schema index cache redis postgres kafka webhook email notification subscription trial upgrade ' +
  'downgrade churn feedback bug crash memory cpu disk network certificate expired renewed quota exceeded limit throttled login ' +
  'logout password reset verification token session cookie browser chrome safari firefox report export import csv pdf upload ' +
  'download image video audio search filter dashboard chart metric alert incident resolved acknowledged escalated oncall pager ' +
  'sla uptime downtime outage degraded healthy unhealthy scaling autoscale container kubernetes pod node docker terraform ' +
  'ansible pipeline github gitlab jenkins commit merge branch tag version changelog hotfix patch feature flag experiment ' +
  'cohort funnel conversion revenue mrr arr stripe paddle tax vat currency euro dollar refund dispute chargeback fraud ' +
  'suspicious blocked allowed whitelist audit compliance gdpr export deletion retention backup restore snapshot replica ' +
  'failover primary secondary leader follower election heartbeat probe liveness readiness sidecar proxy gateway ingress ' +
  'egress firewall vpn ssh key rotation secret vault kms encryption decryption signature checksum mismatch corrupted zebra'
).split(' ');

/** Pick from the vocabulary with a skew: the product of two uniform draws favours low indexes (roughly Zipf-like). */
const WORD = (salt: string) => `(SELECT w FROM vocab WHERE k = ((abs(random()) % ${VOCABULARY.length}) * (abs(random()) % ${VOCABULARY.length}) / ${VOCABULARY.length}) + 0 * ${salt})`;

async function webhookCost() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-search-bench-'));
  const setup = (name: string, mode: 'inline' | 'deferred' | 'none') => {
    const db = openDb(path.join(dir, `${name}.db`));
    db.sqlite.prepare("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'w', 0)").run();
    db.sqlite
      .prepare("INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES ('ch', 'ws', 'c', 'c', '', 0, 't', 0)")
      .run();
    if (mode === 'none') for (const t of ['insert', 'delete', 'update_old', 'update_new']) db.sqlite.exec(`DROP TRIGGER alerts_fts_${t}`);
    if (mode === 'inline') {
      // As before migration 0011: every insert indexed by a trigger inside the write transaction.
      db.sqlite.exec(`DROP TRIGGER alerts_fts_insert; UPDATE search_index_state SET indexed_upto = ${Number.MAX_SAFE_INTEGER};
        CREATE TRIGGER alerts_fts_insert AFTER INSERT ON alerts BEGIN
          INSERT INTO alerts_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source WHERE rid = NEW.rowid; END`);
    }
    const store = new SqliteAlertStore(db.sqlite, new WriteBatcher(db.sqlite));
    return { db, store };
  };
  const inline = setup('inline', 'inline');
  const deferred = setup('deferred', 'deferred');
  const without = setup('plain', 'none');
  const ids = new IdGenerator(() => Date.now());
  let n = 0;
  const pick = () => VOCABULARY[(n * 7919 + Math.floor(n / 13)) % VOCABULARY.length]!;
  const write = (): NewStandardAlert => {
    n++;
    return {
      alertId: ids.next('alt'), channelId: 'ch', workspaceId: 'ws', attachments: [], notify: 'alert.created', now: Date.now(),
      content: {
        title: `${pick()} ${pick()} finished on ${pick()}`, level: 'SUCCESS', emoji: '🚀',
        message: `All ${pick()} checks passed; ${pick()} ${pick()} updated in ${pick()} after ${n % 97} seconds.`,
        fieldsJson: JSON.stringify([{ label: 'service', value: pick(), inline: true }, { label: 'version', value: `v1.${n % 50}.0`, inline: true }]),
        linkUrl: 'https://ci.example.com/runs/4242', linkText: 'View run', source: 'github-actions', metadataJson: null,
        actorJson: JSON.stringify({ name: 'Jane Roe', email: 'jane@acme.com', company: 'Acme' }),
        workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null,
      },
    };
  };
  // The deferred index's passes are counted in its time: one every 20 group commits (the service runs one 50 ms after a write).
  const round = async (store: SqliteAlertStore) => {
    const t = performance.now();
    // 50 concurrent requests per turn, as with 50 connections (one group commit each).
    for (let i = 0, turn = 0; i < N; i += 50, turn++) {
      const batch: Promise<unknown>[] = [];
      for (let j = 0; j < 50; j++) batch.push(store.webhook.insertAlert(write()));
      await Promise.all(batch);
      if (turn % 20 === 19) store.searchIndexer.catchUp();
    }
    store.searchIndexer.catchUp();
    return ((performance.now() - t) * 1000) / N;
  };
  for (const x of [inline, deferred, without]) await round(x.store); // warm-up
  const a: number[] = [];
  const d: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await round(inline.store));
    d.push(await round(deferred.store));
    b.push(await round(without.store));
  }
  for (const x of [inline, deferred, without]) x.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return { indexed: median(a), deferred: median(d), plain: median(b) };
}

async function searchLatency() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-search-'));
  const s = sqliteServicesOf(await openServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' })));
  try {
    const ws = await s.accounts.createWorkspace('Bench');
    const user = await s.accounts.createUser('bench@example.com');
    const other = await s.accounts.createUser('other@example.com');
    await s.accounts.addMember(ws.id, user.id, 'owner');
    await s.accounts.addMember(ws.id, other.id, 'member');
    // Ten channels, one private the searching user is not in: the visibility filter does real work.
    const channels = await Promise.all(Array.from({ length: 10 }, (_, i) => s.accounts.createChannel({ workspaceId: ws.id, name: `ch${i}`, isPrivate: i === 9 })));
    await s.accounts.addChannelMember(channels[9]!.id, other.id);
    const { token } = await s.accounts.createToken(ws.id, user.id);
    const sqlite = s.db.sqlite;
    sqlite.exec('CREATE TEMP TABLE vocab (k INTEGER PRIMARY KEY, w TEXT)');
    const addWord = sqlite.prepare('INSERT INTO temp.vocab (k, w) VALUES (?, ?)');
    VOCABULARY.forEach((w, k) => addWord.run(k, w));
    sqlite.exec('CREATE TEMP TABLE chans (k INTEGER PRIMARY KEY, id TEXT)');
    channels.forEach((c, k) => sqlite.prepare('INSERT INTO temp.chans (k, id) VALUES (?, ?)').run(k, c.id));

    // Seeded as the migration backfills: rows first, then the index from the view in one statement.
    const seedStart = performance.now();
    const t0 = Date.UTC(2026, 0, 1);
    sqlite.exec(`
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${ALERTS})
      INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, source, actor_json, activity_key, created_at, updated_at, seq)
      SELECT printf('alt_%026d', i), (SELECT id FROM chans WHERE k = i % 10), 'standard',
        ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')},
        CASE i % 4 WHEN 0 THEN 'INFO' WHEN 1 THEN 'SUCCESS' WHEN 2 THEN 'WARNING' ELSE 'ERROR' END, '',
        ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')} || ' ' || ${WORD('i')},
        json_array(json_object('label', 'service', 'value', ${WORD('i')}, 'inline', json('true'))),
        'bench', json_object('name', 'user' || (i % 5000), 'company', ${WORD('i')}),
        printf('alt_%026d', i), ${t0} + i, ${t0} + i, (i + 9) / 10
      FROM seq`);
    const rowsSeconds = (performance.now() - seedStart) / 1000;
    const indexStart = performance.now();
    sqlite.exec('INSERT INTO alerts_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source');
    sqlite.exec('UPDATE search_index_state SET indexed_upto = (SELECT max(rowid) FROM alerts)');
    sqlite.exec("INSERT INTO alerts_fts (alerts_fts) VALUES ('optimize')");
    const indexSeconds = (performance.now() - indexStart) / 1000;
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.exec('ANALYZE');
    const dbMb = fs.statSync(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.db'))!)).size / 1e6;
    const ftsPages = sqlite.prepare("SELECT count(*) FROM dbstat WHERE name LIKE 'alerts_fts%'").pluck().get() as number;
    const pageSize = sqlite.pragma('page_size', { simple: true }) as number;

    const app = createApp(s);
    const headers = { authorization: `Bearer ${token}` };
    const fetchText = async (q: string) => {
      const res = await app.request(`/api/search?limit=50&q=${encodeURIComponent(q)}`, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${q}: ${res.status} ${text}`);
      return text;
    };
    const count = (q: string) => sqlite.prepare('SELECT count(*) FROM alerts_fts WHERE alerts_fts MATCH ?').pluck().get(q) as number;
    const queries: [string, string, string][] = [
      ['one common word', 'deploy', '"deploy"'],
      ['one mid-frequency word', 'kubernetes', '"kubernetes"'],
      ['one rare word', 'checksum', '"checksum"'],
      ['two words', 'payment failed', '"payment" "failed"'],
      ['two rarer words', 'kubernetes rollback', '"kubernetes" "rollback"'],
      ['prefix', 'pay*', '"pay" *'],
      ['a word and level=error', 'deploy&level=error', '"deploy"'],
    ];
    const rows: string[] = [];
    for (const [name, q, match] of queries) {
      const [text, level] = q.split('&level=');
      const run = level ? async () => {
        const res = await app.request(`/api/search?limit=50&level=${level}&q=${encodeURIComponent(text!)}`, { headers });
        if (res.status !== 200) throw new Error(`${q}: ${res.status}`);
        return res.text();
      } : () => fetchText(q);
      const r = summarize(await timeIt(ITER, run));
      rows.push(`| ${name}: \`${text}\`${level ? ` level=${level}` : ''} | ${count(match).toLocaleString('en')} | ${ms(r.p50)} | ${ms(r.p99)} |`);
    }
    return [
      `### Search on ${ALERTS.toLocaleString('en')} alerts in 10 channels (rows seeded in ${rowsSeconds.toFixed(1)} s, index built in ${indexSeconds.toFixed(1)} s; ` +
        `database ${dbMb.toFixed(0)} MB, of which the index ${((ftsPages * pageSize) / 1e6).toFixed(0)} MB; ${ITER} requests each, first page of 50, in-process through the whole app)`,
      '',
      '| query | matching alerts | p50 ms | p99 ms |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const cost = await webhookCost();
console.log(
  `### Search indexing cost on the webhook (store unit per alert, in-process, ${N.toLocaleString('en')} alerts × ${ROUNDS} interleaved rounds, 50 per group commit)\n\n` +
    `indexed in the write transaction (a trigger per insert, as before migration 0011): **${cost.indexed.toFixed(1)} µs/alert**; ` +
    `indexed after the commit (migration 0011; the indexer's passes counted): **${cost.deferred.toFixed(1)} µs/alert**; ` +
    `no index: **${cost.plain.toFixed(1)} µs/alert**. Indexing adds ${(cost.indexed - cost.plain).toFixed(1)} µs in the transaction, ` +
    `${(cost.deferred - cost.plain).toFixed(1)} µs after it.\n`,
);
console.log(await searchLatency());
