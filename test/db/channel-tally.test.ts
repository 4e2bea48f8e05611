import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { openDb, type Db } from '../../src/db/sqlite/connection.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertContent, NewStandardAlert } from '../../src/domain/alert-store.js';
import { IdGenerator } from '../../src/lib/ids.js';

/**
 * The channel counters (channel_stats.alert_count and seq_max) are added up
 * once per group commit (src/db/sqlite/alert-store/channel-tally.ts, migration 0012)
 * instead of by a trigger upsert per inserted row. What a user sees must not
 * change: every alert a distinct read-order number, seq_max the largest one,
 * alert_count the rows stored, whatever the batch mixed (inserts, resurfacing
 * runs, failed units, deletes), and inserts made outside the store still
 * counted by the trigger.
 */
describe('channel counters added up once per batch', () => {
  let dir: string;
  let db: Db;
  let batcher: WriteBatcher;
  let store: SqliteAlertStore;
  const ids = new IdGenerator(() => Date.now());
  const content = (over: Partial<AlertContent> = {}): AlertContent => ({
    title: 'Deploy', level: 'INFO', emoji: '', message: null, fieldsJson: null, linkUrl: null, linkText: null, source: null,
    metadataJson: null, actorJson: null, workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null, ...over,
  });
  const alert = (channelId: string, over: Partial<AlertContent> = {}): NewStandardAlert => ({
    alertId: ids.next('alt'), channelId, workspaceId: 'ws', content: content(over), attachments: [], notify: 'alert.created', now: Date.now(),
  });
  /** What the counters say against what the rows say, per channel. */
  const state = (channelId: string) => ({
    stats: db.sqlite.prepare('SELECT alert_count AS count, seq_max AS seqMax FROM channel_stats WHERE channel_id = ?').get(channelId),
    rows: db.sqlite.prepare('SELECT count(*) AS count, max(seq) AS seqMax FROM alerts WHERE channel_id = ?').get(channelId),
    distinct: db.sqlite.prepare('SELECT count(DISTINCT seq) FROM alerts WHERE channel_id = ?').pluck().get(channelId),
  });
  const statsWrites = () => db.sqlite.prepare('SELECT n FROM temp.stats_writes').pluck().get();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-channel-tally-'));
    db = openDb(path.join(dir, 'db.sqlite'));
    db.sqlite.prepare("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'w', 0)").run();
    for (const ch of ['ch_a', 'ch_b']) {
      db.sqlite
        .prepare("INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES (?, 'ws', ?, ?, '', 0, ?, 0)")
        .run(ch, ch, ch, `tok_${ch}`);
    }
    // Counts the writes to channel_stats (this connection only).
    db.sqlite.exec(`CREATE TEMP TABLE stats_writes (n INTEGER NOT NULL); INSERT INTO stats_writes VALUES (0);
      CREATE TEMP TRIGGER stats_ins AFTER INSERT ON main.channel_stats BEGIN UPDATE stats_writes SET n = n + 1; END;
      CREATE TEMP TRIGGER stats_upd AFTER UPDATE ON main.channel_stats BEGIN UPDATE stats_writes SET n = n + 1; END;`);
    batcher = new WriteBatcher(db.sqlite);
    store = new SqliteAlertStore(db.sqlite, batcher);
  });
  afterEach(() => {
    store.searchIndexer.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes each channel once per batch, with exact counts and distinct numbers', async () => {
    await store.webhook.insertAlert(alert('ch_a')); // the channel's first alert creates its row
    db.sqlite.exec('UPDATE temp.stats_writes SET n = 0');
    await Promise.all([...Array(40)].map((_, i) => store.webhook.insertAlert(alert(i % 4 === 0 ? 'ch_b' : 'ch_a'))));
    expect(batcher.stats.batches).toBe(2);
    // ch_a: one UPDATE; ch_b: its row created, then one UPDATE (a trigger per row made 40).
    expect(statsWrites()).toBe(3);
    expect(state('ch_a')).toEqual({ stats: { count: 31, seqMax: 31 }, rows: { count: 31, seqMax: 31 }, distinct: 31 });
    expect(state('ch_b')).toEqual({ stats: { count: 10, seqMax: 10 }, rows: { count: 10, seqMax: 10 }, distinct: 10 });
    expect(db.sqlite.prepare('SELECT count(*) FROM channel_tally_open').pluck().get()).toBe(0);
  });

  it('keeps numbers distinct and counts exact through resurfacing runs, failed units and deletes in one batch', async () => {
    const run = alert('ch_a', { workflowRunId: 'run-1', workflowState: 'running' });
    await store.webhook.insertAlert(run);
    await store.webhook.insertAlert(alert('ch_a'));
    const victim = alert('ch_a');
    const results = await Promise.allSettled([
      store.webhook.insertAlert(alert('ch_a')),
      store.webhook.insertAlert(victim),
      // Resurfaces the run: it takes the channel's next number, after the inserts queued before it.
      store.webhook.saveRun({ ...alert('ch_a', { workflowRunId: 'run-1', workflowState: 'passed' }) }, () => ({ resurfaceAs: ids.next('alt'), notify: null })),
      store.webhook.insertAlert({ ...alert('ch_a'), alertId: run.alertId }), // duplicate id: fails after taking a number
      store.removal.deleteAlert(victim.alertId, Date.now()),
      store.webhook.insertAlert(alert('ch_a')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(batcher.stats.replays).toBe(1);
    const s = state('ch_a');
    // Numbers 1..6 handed out (two inserts, two in the batch, the resurfaced run, one more), the victim's deleted.
    expect(s.rows).toEqual({ count: 4, seqMax: 6 });
    expect(s.distinct).toBe(4);
    expect(s.stats).toEqual({ count: 4, seqMax: 6 });
    const runSeq = db.sqlite.prepare('SELECT seq FROM alerts WHERE id = ?').pluck().get(run.alertId);
    expect(runSeq).toBe(5);
    expect(db.sqlite.prepare('SELECT count(*) FROM channel_tally_open').pluck().get()).toBe(0);
  });

  it('still counts and numbers inserts made outside the store (the trigger), and the resurfacing trigger for bare activity-key updates', async () => {
    await store.webhook.insertAlert(alert('ch_a'));
    const insert = db.sqlite.prepare(
      "INSERT INTO alerts (id, channel_id, kind, title, level, emoji, activity_key, created_at, updated_at, seq) VALUES (?, 'ch_a', 'standard', 't', 'INFO', '', ?, 0, 0, ?)",
    );
    insert.run('alt_hand1', 'alt_hand1', 0); // numbered by the trigger
    insert.run('alt_hand2', 'alt_hand2', 7); // its own number, recorded by the trigger
    db.sqlite.prepare("UPDATE alerts SET activity_key = 'fresh' WHERE id = 'alt_hand1'").run();
    expect(db.sqlite.prepare('SELECT id, seq FROM alerts ORDER BY seq').all()).toEqual([
      { id: expect.any(String), seq: 1 },
      { id: 'alt_hand2', seq: 7 },
      { id: 'alt_hand1', seq: 8 },
    ]);
    expect(state('ch_a').stats).toEqual({ count: 3, seqMax: 8 });
    await store.webhook.insertAlert(alert('ch_a'));
    expect(state('ch_a').stats).toEqual({ count: 4, seqMax: 9 });
  });
});
