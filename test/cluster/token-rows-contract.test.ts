import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/sqlite/connection.js';
import { openPg } from '../../src/db/pg/connection.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlTokenRows } from '../../src/db/shared/token-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { TransferEngine } from '../../src/db/transfer/engine.js';
import { PgTransferEngine } from '../../src/db/transfer/pg-engine.js';
import { SqliteTransferEngine } from '../../src/db/transfer/sqlite-engine.js';
import { transferTables, type Value } from '../../src/db/transfer/tables.js';
import { ManualClock } from '../../src/lib/clock.js';
import { AuthError } from '../../src/domain/errors.js';
import { hashToken, TokenAuthenticator, type ApiBudget, type TokenRows } from '../../src/domain/tokens.js';
import { RateLimiter, type RateDecision } from '../../src/domain/rate-limiter.js';
import { PgRateLimiter } from '../../src/db/pg/rate-limits.js';
import { countingTokenLookUp } from '../../src/db/pg/token-budget.js';
import { tempDir } from '../helpers/harness.js';
import { describePg, freshDatabase } from '../helpers/pg.js';

/**
 * One contract, two engines, for the token rows behind every read-API request: the same rows on
 * SQLite and on PostgreSQL, the same answers through the real TokenAuthenticator. Nothing is cached
 * in a node, so a revocation written through one connection (another node) is seen at once.
 */
const LIVE = `ab_${'a'.repeat(48)}`;
const REVOKED = `ab_${'b'.repeat(48)}`;
const FORMER = `ab_${'c'.repeat(48)}`;
const FIXTURE: [string, Record<string, Value>[]][] = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1, email_verified: true }, { id: 'u2', email: 'x@a.test', name: 'Former', created_at: 1, email_verified: true }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }]],
  ['api_tokens', [
    { id: 't1', workspace_id: 'w1', user_id: 'u1', name: 'live', token_hash: hashToken(LIVE), hint: 'aaaa', created_at: 1, read_only: false },
    { id: 't2', workspace_id: 'w1', user_id: 'u1', name: 'revoked', token_hash: hashToken(REVOKED), hint: 'bbbb', created_at: 1, revoked_at: 5, read_only: false },
    { id: 't3', workspace_id: 'w1', user_id: 'u2', name: 'left', token_hash: hashToken(FORMER), hint: 'cccc', created_at: 1, read_only: false },
  ]],
];

async function seed(engine: TransferEngine) {
  const specs = new Map(transferTables().map((t) => [t.name, t]));
  try {
    for (const [table, rows] of FIXTURE) {
      const spec = specs.get(table)!;
      await engine.insert(spec, rows.map((r) => spec.columns.map((c) => r[c.name] ?? null)));
    }
  } finally {
    await engine.close();
  }
}

interface Engine {
  rows: TokenRows;
  /** Runs a statement through another connection, as another node would. */
  exec(sql: string): Promise<void>;
  lastUsed(id: string): Promise<number | null>;
  /** The read API's budget as the service builds it on this engine (on PostgreSQL the look-up counts). */
  budget(perMinute: number, clock: ManualClock): ApiBudget;
  /** Requests counted in the database for a token (PostgreSQL); undefined where counts live in memory. */
  spent(tokenId: string): Promise<number | undefined>;
  close(): Promise<void>;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  const clock = new ManualClock(1_700_000_000_000);
  beforeAll(async () => (e = await open()));
  afterAll(() => e.close());
  /** The authenticator as the service builds it on this engine, with a budget too large to matter unless given. */
  const authenticator = (c = clock, perMinute = 1_000) => new TokenAuthenticator(e.rows, 'ab', c, e.budget(perMinute, c));
  const reason = (header: string, auth = authenticator()) =>
    auth.admit(header).then(
      () => 'ok',
      (err: unknown) => (err instanceof AuthError ? err.reason : String(err)),
    );

  it('authenticates a live token and records its use', async () => {
    expect((await authenticator().admit(`Bearer ${LIVE}`)).principal).toEqual({ tokenId: 't1', userId: 'u1', workspaceId: 'w1', readOnly: false });
    expect(await e.lastUsed('t1')).toBe(clock.now());
  });

  it('refuses a revoked token, a former member\'s token and an unknown one with their reasons', async () => {
    expect(await reason(`Bearer ${REVOKED}`)).toBe('unknown_token');
    expect(await reason(`Bearer ${FORMER}`)).toBe('not_a_workspace_member');
    expect(await reason(`Bearer ab_${'d'.repeat(48)}`)).toBe('unknown_token');
  });

  it('admits a usable token within its budget, exactly, however many requests arrive together; a refused token spends nothing', async () => {
    const budgetClock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const auth = authenticator(budgetClock, 2);
    const brief = (d: RateDecision) => `${d.allowed ? 'ok' : 'no'} ${d.remaining}/${d.limit} ${d.resetSeconds}s`;
    const together = await Promise.all([1, 2, 3].map(() => auth.admit(`Bearer ${LIVE}`)));
    // Which of the three is refused depends on arrival; that exactly one is does not.
    expect(together.map((a) => brief(a.rate)).sort()).toEqual(['no 0/2 60s', 'ok 0/2 60s', 'ok 1/2 60s']);
    expect(together[0]!.principal).toEqual({ tokenId: 't1', userId: 'u1', workspaceId: 'w1', readOnly: false });
    expect(await reason(`Bearer ${REVOKED}`, auth)).toBe('unknown_token');
    expect(await reason(`Bearer ${FORMER}`, auth)).toBe('not_a_workspace_member');
    expect(await reason(`Bearer ab_${'e'.repeat(48)}`, auth)).toBe('unknown_token');
    expect(await reason('Basic x', auth)).toBe('malformed_authorization_header');
    // Nothing counted for the refused tokens. (The live one's batch of three is stored whole: a
    // count may pass the limit by less than its batch, src/db/pg/rate-limits.ts.)
    for (const [id, want] of [['t1', 3], ['t2', 0], ['t3', 0]] as const) {
      const spent = await e.spent(id);
      if (spent !== undefined) expect(spent).toBe(want);
    }
    // The next window starts afresh.
    budgetClock.advance(60_000);
    expect(brief((await auth.admit(`Bearer ${LIVE}`)).rate)).toBe('ok 1/2 60s');
    expect(await e.lastUsed('t1')).toBe(budgetClock.now());
  });

  it('sees a revocation written by another connection at once', async () => {
    const p = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
    expect(await e.rows.stillAuthorized(p)).toBe(true);
    await e.exec(`UPDATE api_tokens SET revoked_at = 9 WHERE id = 't1'`);
    expect(await e.rows.stillAuthorized(p)).toBe(false);
    expect(await reason(`Bearer ${LIVE}`)).toBe('unknown_token');
  });
}

describe('token rows on SQLite', () => {
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  contract(async () => {
    const file = path.join(dir, 'alertbridge.db');
    await seed(SqliteTransferEngine.openTarget(file));
    const db = openDb(file);
    const other = openDb(file, { migrate: false });
    return {
      rows: new SqlTokenRows(new SqliteExecutor(db.sqlite)),
      exec: async (sql) => void other.sqlite.exec(sql),
      lastUsed: async (id) => other.sqlite.prepare<[string], number | null>('SELECT last_used_at FROM api_tokens WHERE id = ?').pluck().get(id) ?? null,
      budget: (perMinute, clock) => ({ limiter: new RateLimiter(perMinute, clock) }),
      spent: async () => undefined,
      close: async () => {
        other.close();
        db.close();
      },
    };
  });
});

describePg('token rows on PostgreSQL', () => {
  contract(async () => {
    const fresh = await freshDatabase({ migrated: true });
    await seed(await PgTransferEngine.open(fresh.url));
    const db = await openPg(fresh.url);
    const other = await openPg(fresh.url, { migrate: false });
    return {
      rows: new SqlTokenRows(new PgExecutor(db.pool)),
      exec: async (sql) => void (await other.pool.query(sql)),
      lastUsed: async (id) => (await other.pool.query<{ v: number | null }>('SELECT last_used_at AS v FROM api_tokens WHERE id = $1', [id])).rows[0]?.v ?? null,
      budget: (perMinute, clock) => {
        const limiter = new PgRateLimiter(db.pool, 'api', perMinute, clock);
        return { limiter, lookUp: countingTokenLookUp(db.pool, limiter) };
      },
      spent: async (id) => (await other.pool.query<{ n: number }>(`SELECT coalesce(sum(count), 0)::int AS n FROM rate_limits WHERE key = 'api:' || $1`, [id])).rows[0]!.n,
      close: async () => {
        await other.close();
        await db.close();
        await fresh.drop();
      },
    };
  });
});
