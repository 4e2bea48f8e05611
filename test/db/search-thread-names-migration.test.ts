import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { migrateBefore } from '../helpers/migrate-before.js';
import { sqliteServicesOf } from '../../src/services.js';

/**
 * The thread-name migration (drizzle/0027) changes what the external-content FTS5 index reads for
 * threaded messages: those already indexed must leave with their old tokens and come back with the
 * name, or a later update or delete would remove tokens the index never held (a corrupt index).
 */

const MIGRATION = '0027_search_thread_names';

let h: Harness | undefined;
afterEach(async () => h?.close());

describe('search thread names migration', () => {
  it('re-indexes threaded messages with their thread name and keeps the index consistent through renames and deletes', async () => {
    const dir = tempDir();
    const sqlite = migrateBefore(path.join(dir, 'alertbridge.db'), MIGRATION);
    sqlite.exec(`
      INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'Acme', 0);
      INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES ('ch_1', 'ws_1', 'Community', 'community', '', 0, 'whk_1', 0);
      INSERT INTO alerts (id, channel_id, kind, message, author_json, thread_id, thread_json, tags_json, activity_key, created_at, updated_at) VALUES
        ('alt_01', 'ch_1', 'chat', 'please add it', '{"name":"alice"}', '111111111111111111', '{"id":"111111111111111111","name":"Dark mode"}', '["ui"]', 'alt_01', 0, 0),
        ('alt_02', 'ch_1', 'chat', 'same here', '{"name":"bob"}', '111111111111111111', '{"id":"111111111111111111","name":"Dark mode"}', '["ui"]', 'alt_02', 0, 0),
        ('alt_03', 'ch_1', 'chat', 'hello', '{"name":"bob"}', NULL, NULL, NULL, 'alt_03', 0, 0);
      -- As the indexer does: every row indexed before the migration runs.
      INSERT INTO alerts_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source;
      UPDATE search_index_state SET indexed_upto = (SELECT max(rowid) FROM alerts) WHERE id = 1;
    `);
    sqlite.close();

    h = await startHarness({ engine: 'sqlite', dir });
    const db = sqliteServicesOf(h.services).db.sqlite;
    const found = (q: string) => db.prepare(`SELECT a.id FROM alerts_fts f JOIN alerts a ON a.rowid = f.rowid WHERE alerts_fts MATCH ? ORDER BY a.id`).pluck().all(q);
    // FTS5's integrity-check against the content reads the view schema-qualified, where json_each fails; instead the
    // index's every token instance is compared with those of a fresh index of the view's current text.
    db.exec(`CREATE VIRTUAL TABLE temp.fresh_fts USING fts5(title, body, actor, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE temp.fresh_vocab USING fts5vocab(temp, fresh_fts, instance);
      CREATE VIRTUAL TABLE temp.index_vocab USING fts5vocab(main, alerts_fts, instance);`);
    const instances = (table: string) => db.prepare(`SELECT term, doc, col, offset FROM ${table} ORDER BY 1, 2, 3, 4`).raw().all();
    const intact = () => {
      db.exec(`DELETE FROM temp.fresh_fts; INSERT INTO temp.fresh_fts (rowid, title, body, actor) SELECT rid, title, body, actor FROM alerts_search_source;`);
      expect(instances('temp.index_vocab')).toEqual(instances('temp.fresh_vocab'));
      db.prepare(`INSERT INTO alerts_fts (alerts_fts) VALUES ('integrity-check')`).run();
    };

    intact();
    expect(found('dark')).toEqual(['alt_01', 'alt_02']);
    expect(found('"dark mode" here')).toEqual(['alt_02']);
    expect(found('hello')).toEqual(['alt_03']);

    // A rename rewrites thread_json (as THREAD_COPIES does): the update triggers follow it.
    db.prepare(`UPDATE alerts SET thread_json = '{"id":"111111111111111111","name":"Night theme"}' WHERE thread_id = '111111111111111111'`).run();
    intact();
    expect(found('night')).toEqual(['alt_01', 'alt_02']);
    expect(found('dark')).toEqual([]);

    db.prepare(`DELETE FROM alerts WHERE id = 'alt_02'`).run();
    intact();
    expect(found('night')).toEqual(['alt_01']);
  });
});
