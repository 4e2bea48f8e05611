import type pg from 'pg';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFunctionStatement, SEARCH_FUNCTIONS_BEFORE_0023 } from '../../bench/lib/search-functions-before.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * The search vector's functions became PL/pgSQL (drizzle-pg/0023_search_plpgsql.sql) so that their
 * plans last a session instead of one statement. The vectors already stored must not change, and a
 * restore (pg_restore runs with an empty search_path) must still compute them.
 */
const COLUMNS = ['title', 'message', 'fields_json', 'steps_json', 'workflow_error', 'link_text', 'source', 'actor_json', 'author_json', 'thread_json'] as const;
type Doc = Partial<Record<(typeof COLUMNS)[number], string>>;

const DOCS: Doc[] = [
  { title: 'Deploy finished: api v1.42.0', message: 'All checks passed; 3 instances updated in eu-west-1.', fields_json: JSON.stringify([{ label: 'service', value: 'api', inline: true }, { label: 'duration', value: 187 }]), source: 'github-actions', actor_json: JSON.stringify({ email: 'jane.doe@acme.com' }) },
  { title: 'Crème brûlée — ÉTÉ façade', message: 'Straße über naïve coöperation', actor_json: JSON.stringify({ name: 'Zoë', company: 'Ünïcode GmbH' }), author_json: JSON.stringify({ name: 'Bjørn' }) },
  { title: '部署 完成 🚀 :rocket:', message: 'ошибка платежа  payment-failed\u00a0x', steps_json: JSON.stringify([{ name: 'build' }, { name: 'test' }, {}]), workflow_error: 'exit 1', link_text: 'Run #4242' },
  { title: 'json that is not json', fields_json: '{not json', steps_json: '"a string"', actor_json: '[1,2]', author_json: 'null', thread_json: JSON.stringify({ name: 'Feedback: login loop' }) },
  { title: `${'x'.repeat(2100)} long word kept out, position kept`, message: '', source: '' },
  { title: '   ', message: '---', fields_json: '[]' },
  {},
];

describePg('the search vector in PL/pgSQL', () => {
  let fresh: FreshDatabase;
  let db: PgDb;
  let pool: pg.Pool;
  beforeAll(async () => {
    fresh = await freshDatabase({ migrated: true });
    db = await openPg(fresh.url);
    pool = db.pool;
    // The SQL-language definitions it replaced, in a schema of their own.
    const client = await pool.connect();
    try {
      await client.query('CREATE SCHEMA before_0023; SET search_path = before_0023, public');
      for (const [file, signature] of SEARCH_FUNCTIONS_BEFORE_0023) await client.query(createFunctionStatement(file, signature));
      await client.query('RESET search_path');
    } finally {
      client.release();
    }
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });

  const args = (d: Doc) => COLUMNS.map((c) => d[c] ?? null);
  const call = (schema: string) => `SELECT ${schema}.alertbridge_search_document(${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})::text AS v`;

  const body = (schema: string) => `SELECT ${schema}.alertbridge_search_body($1, $2, $3, $4, $5, $6) AS v`;
  // message, fields_json, steps_json, workflow_error, link_text, source
  const bodyArgs = (d: Doc) => args(d).slice(1, 7);

  it('computes the vectors and excerpts the SQL-language functions did, so stored vectors stay valid', async () => {
    const languages = await pool.query<{ proname: string; lanname: string }>(
      `SELECT p.proname, l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'before_0023' ORDER BY 1`,
    );
    expect(languages.rows.map((r) => `${r.proname} ${r.lanname}`)).toEqual(['alertbridge_search_body sql', 'alertbridge_search_document sql', 'alertbridge_search_part sql']);
    const current = await pool.query<{ lanname: string }>(`SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = 'public.alertbridge_search_document'::regproc`);
    expect(current.rows[0]?.lanname).toBe('plpgsql');
    for (const d of DOCS) {
      const now = (await pool.query<{ v: string }>(call('public'), args(d))).rows[0]!.v;
      const before = (await pool.query<{ v: string }>(call('before_0023'), args(d))).rows[0]!.v;
      expect(now, JSON.stringify(d).slice(0, 80)).toBe(before);
      // The highlights' excerpt text reads the body function too.
      const [bodyNow, bodyBefore] = await Promise.all(['public', 'before_0023'].map(async (schema) => (await pool.query<{ v: string }>(body(schema), bodyArgs(d))).rows[0]!.v));
      expect(bodyNow).toBe(bodyBefore);
    }
    // Not vacuous: the first document has words under all three weights.
    const first = (await pool.query<{ v: string }>(call('public'), args(DOCS[0]!))).rows[0]!.v;
    for (const lexeme of [/'deploy':1A/, /'checks':\d+B/, /'jane':\d+C/]) expect(first).toMatch(lexeme);
  });

  it('computes the vector with an empty search_path, as pg_restore runs', async () => {
    const expected = (await pool.query<{ v: string }>(call('public'), args(DOCS[0]!))).rows[0]!.v;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_catalog.set_config('search_path', '', true)");
      expect((await client.query<{ v: string }>(call('public'), args(DOCS[0]!))).rows[0]!.v).toBe(expected);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
