import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgChannelPages, pgPageStatements } from '../../src/db/pg/alert-store/channel-pages.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { PREPARED_STATEMENTS } from '../../src/db/shared/statement.js';
// The modules that define the prepared statements (each adds its own to PREPARED_STATEMENTS when it loads; channel-pages above).
import '../../src/db/shared/alert-reads.js';
import '../../src/db/shared/token-rows.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * A statement marked `prepared` is planned once per connection, and after five runs PostgreSQL may
 * keep one generic plan, made without the parameters' values. So each such statement must have a
 * generic plan that reads its tables by index whatever the values: planned here with
 * plan_cache_mode = force_generic_plan on a database big enough that a sequential scan would lose
 * (2,000 channels in two workspaces, users, tokens and read marks; 20,000 alerts over the 50 channels of one, 5,000 read exceptions and attachments), and read with EXPLAIN.
 */
const SAMPLE: Record<string, unknown> = {
  userId: 'u1',
  workspaceId: 'w1',
  ref: 'c7',
  tokenHash: 'f'.repeat(64),
  channelId: 'ch7',
  level: 'ERROR',
  cursor: `alt_${'0'.repeat(20)}015000`,
  after: `alt_${'0'.repeat(20)}000100`,
  threadId: 'th3',
  limit: 51,
  status1: 'open',
  status2: 'resolved',
  status3: 'open',
};

const SEED = `
  INSERT INTO workspaces (id, name, created_at) VALUES ('w1', 'Acme', 1), ('w2', 'Other', 1);
  INSERT INTO users (id, email, name, created_at) SELECT 'u' || i, 'u' || i || '@a.test', 'U', 1 FROM generate_series(1, 2000) i;
  INSERT INTO memberships (workspace_id, user_id, role, created_at) SELECT 'w1', 'u' || i, 'member', 1 FROM generate_series(1, 2000) i;
  INSERT INTO channels (id, workspace_id, name, slug, icon, webhook_token, created_at)
    SELECT 'ch' || i, CASE WHEN i <= 50 THEN 'w1' ELSE 'w2' END, 'c' || i, 'c' || i, '#', 'whk' || i, 1 FROM generate_series(1, 2000) i;
  INSERT INTO api_tokens (id, workspace_id, user_id, name, token_hash, hint, created_at)
    SELECT 't' || i, 'w1', 'u' || i, 'n', md5(i::text), 'h', 1 FROM generate_series(1, 2000) i;
  INSERT INTO alerts (id, channel_id, kind, title, level, activity_key, created_at, updated_at, seq, thread_id)
    SELECT 'alt_' || lpad(i::text, 26, '0'), 'ch' || (1 + i % 50), 'standard', 't', (ARRAY['INFO', 'ERROR'])[1 + i % 2], 'k' || i, i, i, i,
           CASE WHEN i % 10 = 0 THEN 'th' || (i % 7) END
    FROM generate_series(1, 20000) i;
  INSERT INTO read_marks (user_id, channel_id, updated_at) SELECT 'u' || i, 'ch' || (1 + i % 50), 1 FROM generate_series(1, 2000) i;
  INSERT INTO read_exceptions (user_id, alert_id, channel_id, is_read) SELECT 'u' || (1 + i % 2000), 'alt_' || lpad(i::text, 26, '0'), 'ch' || (1 + i % 50), true FROM generate_series(1, 5000) i;
  INSERT INTO channel_members (channel_id, user_id, created_at) SELECT 'ch' || (1 + i % 2000), 'u' || i, 1 FROM generate_series(1, 2000) i;
  INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, size) SELECT 'alt_' || lpad(i::text, 26, '0'), 0, 'k', 'image/png', 'image', 1 FROM generate_series(1, 5000) i;
  ANALYZE;`;

describePg('the generic plans of the statements kept prepared on PostgreSQL', () => {
  let database: FreshDatabase;
  let db: PgDb;
  let client: pg.Client;
  beforeAll(async () => {
    database = await freshDatabase({ migrated: true });
    db = await openPg(database.url);
    await db.pool.query(SEED);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('SET plan_cache_mode = force_generic_plan');
  });
  afterAll(async () => {
    await client?.end();
    await db?.close();
    await database?.drop();
  });

  const literal = (value: unknown) => (value === null ? 'NULL' : typeof value === 'number' ? String(value) : client.escapeLiteral(String(value)));

  /** The statement's generic plan, as EXPLAIN prints it. */
  async function genericPlan(name: string, text: string, names: readonly string[]): Promise<string> {
    for (const n of names) if (!(n in SAMPLE)) throw new Error(`no sample value for :${n}: add one to SAMPLE`);
    await client.query(`PREPARE ${name} AS ${text}`);
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) EXECUTE ${name}(${names.map((n) => literal(SAMPLE[n])).join(', ')})`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query(`DEALLOCATE ${name}`);
    }
  }

  it('reads every table by index, and each alert page as one index range in its order (no sort)', async () => {
    expect(PREPARED_STATEMENTS.length).toBeGreaterThan(10);
    for (const stmt of PREPARED_STATEMENTS) {
      const plan = await genericPlan(stmt.pg!.prepared!, stmt.pg!.text, stmt.pg!.names);
      const context = `${stmt.pg!.text}\n--- generic plan:\n${plan}`;
      expect(plan, context).not.toMatch(/Seq Scan on (alerts|channels|api_tokens|memberships|read_marks|read_exceptions|alert_attachments|channel_members)\b/);
      if (!/FROM alerts a WHERE/.test(stmt.pg!.text)) continue;
      // An alert page: the first rows of one index range, never a sort of the channel's alerts.
      expect(plan, context).not.toMatch(/^\s*(->\s*)?(Incremental )?Sort\b/m);
      expect(plan, context).toMatch(/Index Scan( Backward)? using alerts_channel_\w+ on alerts a/);
    }
  });

  it('leave out the pages whose plan depends on the values, and keep the read API\'s common pages', async () => {
    // Left unprepared: the status filter (no one index serves its three values in id order), a page bounded on both sides, a level within a thread.
    expect(PREPARED_STATEMENTS.some((s) => /a\.status IN/.test(s.pg!.text))).toBe(false);
    expect(PREPARED_STATEMENTS.some((s) => /id\) < .* AND .*id\) >|a\.id < .* AND a\.id >/.test(s.pg!.text))).toBe(false);
    expect(PREPARED_STATEMENTS.some((s) => /a\.thread_id = .* AND a\.level =/.test(s.pg!.text))).toBe(false);
    // The first page, the next one, and a level's: the read API's common pages.
    const pages = PREPARED_STATEMENTS.map((s) => s.pg!.text.replace(/\s+/g, ' ')).filter((t) => t.includes('FROM alerts a WHERE'));
    const channel = 'a\\.channel_id >= ch\\.id AND a\\.channel_id <= ch\\.id';
    const newestFirst = 'ORDER BY a\\.channel_id DESC, a\\.id DESC';
    expect(pages.filter((t) => new RegExp(` WHERE ${channel} ${newestFirst} LIMIT`).test(t))).toHaveLength(1);
    expect(pages.filter((t) => new RegExp(`${channel} AND \\(a\\.channel_id, a\\.id\\) < \\(ch\\.id, \\$\\d+\\) ${newestFirst}`).test(t))).toHaveLength(1);
    expect(pages.filter((t) => new RegExp(`${channel} AND a\\.level = \\$\\d+ ${newestFirst}`).test(t))).toHaveLength(1);
  });
});

/**
 * The page's statement finds its channel itself, so no plan of it knows which channel is asked
 * for. On a database of a few channels of very different sizes (the usual small installation), a
 * page written as `a.channel_id = ch.id ORDER BY a.id` was planned as a walk of the primary key,
 * newest first, filtered by channel: cheap-looking for 51 rows, but reading the big channel's every
 * alert to fill a page of the small one. Each page now bounds the channel as a range and orders by
 * (channel_id, id), an order only the channel's indexes give without sorting.
 */
const SKEWED = `
  INSERT INTO workspaces (id, name, created_at) VALUES ('w1', 'Acme', 1);
  INSERT INTO users (id, email, name, created_at) VALUES ('u1', 'u1@a.test', 'U', 1);
  INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ('w1', 'u1', 'member', 1);
  INSERT INTO channels (id, workspace_id, name, slug, icon, webhook_token, created_at) VALUES
    ('ch1', 'w1', 'big', 'big', '#', 'whk1', 1), ('ch7', 'w1', 'c7', 'c7', '#', 'whk7', 1);
  INSERT INTO alerts (id, channel_id, kind, title, level, activity_key, created_at, updated_at, seq)
    SELECT 'alt_' || lpad(i::text, 26, '0'), CASE WHEN i % 2000 = 0 THEN 'ch7' ELSE 'ch1' END, 'standard', 't', 'INFO', 'k' || i, i, i, i
    FROM generate_series(1, 40000) i;
  ANALYZE;`;

describePg('the alert pages on a database with one big channel and one small', () => {
  let database: FreshDatabase;
  let db: PgDb;
  beforeAll(async () => {
    database = await freshDatabase({ migrated: true });
    db = await openPg(database.url, { migrate: false, max: 1 });
    await db.pool.query(SKEWED);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('read a small channel through its index, with the plan PostgreSQL keeps', async () => {
    const pages = new PgChannelPages(new PgExecutor(db.pool));
    for (let i = 0; i < 12; i++) {
      const page = await pages.channelPage({ userId: 'u1', workspaceId: 'w1' }, 'c7', { limit: 51 });
      expect(page?.rows.map((r) => r.channelId)).toEqual(Array(20).fill('ch7'));
    }
    // One connection: its prepared page ran 12 times; the plan it now runs, as EXPLAIN EXECUTE shows it.
    const { rows } = await db.pool.query<{ name: string; generic: string }>(
      "SELECT name, generic_plans AS generic FROM pg_prepared_statements WHERE statement LIKE '%FROM alerts a WHERE%'",
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.generic)).toBeGreaterThan(0);
    const stmt = pgPageStatements().find((s) => s.pg!.prepared === rows[0]!.name)!;
    const plan = await planOf(stmt.pg!.text, stmt.pg!.names, 'auto');
    expect(plan).toMatch(/Index Scan Backward using alerts_channel_id_idx on alerts a \(actual rows=20 loops=1\)/);
    expect(plan).not.toMatch(/alerts_pkey/);
  });

  it('never walk the primary key for any page, planned with the values or, when kept prepared, without them', async () => {
    const statements = pgPageStatements();
    expect(statements.length).toBe(64);
    for (const stmt of statements) {
      const modes = stmt.pg!.prepared ? (['force_custom_plan', 'force_generic_plan'] as const) : (['force_custom_plan'] as const);
      for (const mode of modes) {
        const plan = await planOf(stmt.pg!.text, stmt.pg!.names, mode);
        expect(plan, `${mode}: ${stmt.pg!.text}\n--- plan:\n${plan}`).not.toMatch(/using alerts_pkey on alerts a\b/);
      }
    }
  });

  /** EXPLAIN ANALYZE of the statement with the sample values, on a session whose plan_cache_mode is `mode`. */
  async function planOf(text: string, names: readonly string[], mode: 'auto' | 'force_custom_plan' | 'force_generic_plan'): Promise<string> {
    const client = await db.pool.connect();
    try {
      await client.query(`SET plan_cache_mode = ${mode}`);
      await client.query(`PREPARE sample AS ${text}`);
      const values = names.map((n) => (typeof SAMPLE[n] === 'number' ? String(SAMPLE[n]) : client.escapeLiteral(String(SAMPLE[n]))));
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE sample(${values.join(', ')})`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('DEALLOCATE sample; RESET plan_cache_mode');
      client.release();
    }
  }
});
