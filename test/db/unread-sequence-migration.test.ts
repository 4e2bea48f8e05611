import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { migrateBefore } from '../helpers/migrate-before.js';
import { sqliteServicesOf } from '../../src/services.js';

/**
 * The unread-sequence migration backfills a database written before it:
 * alerts numbered in their old activity-key order, watermarks turned into
 * numbers, void exceptions dropped, live ones kept. Read state must look the
 * same through the API before and after.
 */

const MIGRATION = '0011_unread_sequence';

let h: Harness | undefined;
afterEach(async () => h?.close());

describe('unread sequence migration', () => {
  it('turns activity keys, text watermarks and exceptions into numbers with the same read state', async () => {
    const dir = tempDir();
    const sqlite = migrateBefore(path.join(dir, 'alertbridge.db'), MIGRATION);
    sqlite.exec(`
      INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'Acme', 0);
      INSERT INTO users (id, email, name, created_at) VALUES ('usr_a', 'a@acme.test', 'A', 0), ('usr_b', 'b@acme.test', 'B', 0), ('usr_c', 'c@acme.test', 'C', 0);
      INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ('ws_1', 'usr_a', 'owner', 0), ('ws_1', 'usr_b', 'member', 0), ('ws_1', 'usr_c', 'member', 0);
      INSERT INTO channels (id, workspace_id, name, slug, icon, is_private, webhook_token, created_at) VALUES
        ('ch_1', 'ws_1', 'General', 'general', '', 0, 'whk_1', 0), ('ch_2', 'ws_1', 'Empty', 'empty', '', 0, 'whk_2', 1);
    `);
    // alt_05 resurfaced (activity key after alt_08); alt_03 was deleted long ago (no row).
    const keys: [string, string][] = [
      ['alt_01', 'alt_01'], ['alt_02', 'alt_02'], ['alt_04', 'alt_04'], ['alt_05', 'alt_09'], ['alt_06', 'alt_06'], ['alt_07', 'alt_07'], ['alt_08', 'alt_08'],
    ];
    const insert = sqlite.prepare(
      `INSERT INTO alerts (id, channel_id, kind, title, activity_key, created_at, updated_at) VALUES (?, 'ch_1', 'standard', ?, ?, 0, 0)`,
    );
    for (const [id, key] of keys) insert.run(id, id, key);
    sqlite.exec(`
      -- a: read up to alt_06 (so alt_05, resurfaced as alt_09, is unread again); read alt_07 above it, marked alt_02 unread below it.
      INSERT INTO read_marks (user_id, channel_id, watermark, updated_at) VALUES ('usr_a', 'ch_1', 'alt_06', 0);
      INSERT INTO read_exceptions (user_id, alert_id, channel_id, activity_key, is_read) VALUES
        ('usr_a', 'alt_07', 'ch_1', 'alt_07', 1), ('usr_a', 'alt_02', 'ch_1', 'alt_02', 0),
        -- void: recorded against alt_05's key before it resurfaced
        ('usr_a', 'alt_05', 'ch_1', 'alt_05', 1),
        -- b never marked all read; read alt_08 and (void) alt_05 before it resurfaced
        ('usr_b', 'alt_08', 'ch_1', 'alt_08', 1), ('usr_b', 'alt_05', 'ch_1', 'alt_05', 1);
      -- c read everything
      INSERT INTO read_marks (user_id, channel_id, watermark, updated_at) VALUES ('usr_c', 'ch_1', 'alt_09', 0);
    `);
    sqlite.close();

    h = await startHarness({ engine: 'sqlite', dir });
    const db = sqliteServicesOf(h.services).db.sqlite;
    expect(db.prepare(`SELECT id FROM alerts ORDER BY seq`).pluck().all()).toEqual(['alt_01', 'alt_02', 'alt_04', 'alt_06', 'alt_07', 'alt_08', 'alt_05']);
    expect(db.prepare('SELECT channel_id, alert_count, seq_max FROM channel_stats ORDER BY channel_id').raw().all()).toEqual([
      ['ch_1', 7, 7],
      ['ch_2', 0, 0],
    ]);
    expect(db.prepare('SELECT user_id, alert_id, seq, is_read FROM read_exceptions ORDER BY user_id, alert_id').raw().all()).toEqual([
      ['usr_a', 'alt_02', 2, 0],
      ['usr_a', 'alt_07', 5, 1],
      ['usr_b', 'alt_08', 6, 1],
    ]);

    const unread = async (userId: string) => {
      const token = (await h!.services.accounts.createToken('ws_1', userId)).token;
      const channels = await bodyOf.channels(await h!.call('GET', '/api/channels', { token }));
      const page = await bodyOf.page(await h!.call('GET', '/api/channels/ch_1/alerts?limit=100', { token }));
      return {
        count: channels.find((c) => c.id === 'ch_1')!._count.alerts,
        ids: page.alerts.filter((a) => !a.isRead).map((a) => a.id).sort(),
      };
    };
    expect(await unread('usr_a')).toEqual({ count: 3, ids: ['alt_02', 'alt_05', 'alt_08'] });
    expect(await unread('usr_b')).toEqual({ count: 6, ids: ['alt_01', 'alt_02', 'alt_04', 'alt_05', 'alt_06', 'alt_07'] });
    expect(await unread('usr_c')).toEqual({ count: 0, ids: [] });

    // New alerts continue the numbering; the counters keep working on migrated rows.
    const res = await h.call('POST', '/api/webhook/whk_1', { json: { title: 'after the upgrade' } });
    expect(res.status).toBe(201);
    db.prepare("DELETE FROM alerts WHERE id = 'alt_08'").run();
    expect(db.prepare('SELECT seq_max FROM channel_stats WHERE channel_id = ?').pluck().get('ch_1')).toBe(8);
    expect((await unread('usr_a')).count).toBe(3);
    expect((await unread('usr_c')).count).toBe(1);
  });
});
