import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAccountMailRows } from '../../src/db/shared/account-mail-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { AccountMailRows } from '../../src/domain/auth/account-mail.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle } from './engines.js';

/**
 * The account e-mail outbox (account_emails) on both engines, each with two connections as two
 * processes or nodes: a due row is claimed by exactly one, a retry waits for its time, a row
 * finished (sent or given up) no longer holds its sealed link, a crash's `sending` rows are given up
 * only past the lease passed in, and finished rows are pruned.
 */
interface Engine extends EngineHandle {
  a: AccountMailRows;
  b: AccountMailRows;
}

const row = (id: string, createdAt: number) => ({ id, toAddress: `${id}@acme.test`, kind: 'sign-in' as const, sealedLink: `sealed-${id}`, linkExpiresAt: createdAt + 900_000, createdAt });

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => {
    e = await open();
  });
  afterAll(async () => e?.close());
  beforeEach(async () => e.exec('DELETE FROM account_emails'));
  const stored = async () =>
    (await e.query<{ id: string; state: string; sealed: string | null }>('SELECT id, state, sealed_link AS sealed FROM account_emails ORDER BY id'));

  it('of eight claims of one due row on two connections, exactly one gets it', async () => {
    await e.a.insert(row('aml_1', 1_000));
    expect(await e.b.dueIds(999, 10)).toEqual([]);
    expect(await e.b.dueIds(1_000, 10)).toEqual(['aml_1']);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? e.a : e.b).claim('aml_1', 1_000)));
    expect(claims.filter(Boolean)).toEqual([{ id: 'aml_1', toAddress: 'aml_1@acme.test', kind: 'sign-in', sealedLink: 'sealed-aml_1', linkExpiresAt: 901_000, attempts: 1 }]);
    expect(await e.a.anythingDue(5_000)).toBe(false);
  });

  it('a retry waits for its time; sent and failed rows drop their sealed link and are pruned later', async () => {
    await e.a.insert(row('aml_1', 1_000));
    await e.a.insert(row('aml_2', 1_000));
    await e.a.claim('aml_1', 1_000);
    await e.b.retry('aml_1', 3_000, '451 try later');
    expect(await e.a.nextDue()).toBe(1_000);
    await e.a.claim('aml_2', 1_000);
    await e.a.failed('aml_2', 1_500, '550 no such mailbox');
    expect(await e.b.nextDue()).toBe(3_000);
    expect(await e.b.claim('aml_1', 2_999)).toBeUndefined();
    expect((await e.b.claim('aml_1', 3_000))?.attempts).toBe(2);
    await e.b.sent('aml_1', 3_100);
    expect(await stored()).toEqual([
      { id: 'aml_1', state: 'sent', sealed: null },
      { id: 'aml_2', state: 'failed', sealed: null },
    ]);
    expect(await e.a.nextDue()).toBeNull();
    expect(await e.a.prune(1_500)).toBe(0);
    expect(await e.a.prune(3_101)).toBe(2);
    expect(await stored()).toEqual([]);
  });

  it('rows left sending are given up (link blanked) only when claimed at or before the cut-off', async () => {
    await e.a.insert(row('aml_1', 1_000));
    await e.a.insert(row('aml_2', 1_000));
    await e.a.claim('aml_1', 1_000);
    await e.b.claim('aml_2', 2_000);
    expect(await e.b.recoverInterrupted(1_500, 2_500, 'interrupted')).toBe(1);
    expect(await stored()).toEqual([
      { id: 'aml_1', state: 'failed', sealed: null },
      { id: 'aml_2', state: 'sending', sealed: 'sealed-aml_2' },
    ]);
  });
}

describe('account_emails rows (sqlite)', () => {
  contract(async () => {
    const e = await sqliteEngine([]);
    return { ...e, a: new SqlAccountMailRows(new SqliteExecutor(e.db.sqlite)), b: new SqlAccountMailRows(new SqliteExecutor(e.other.sqlite)) };
  });
});

describePg('account_emails rows (postgres)', () => {
  contract(async () => {
    const e = await pgEngine([]);
    return { ...e, a: new SqlAccountMailRows(new PgExecutor(e.db.pool)), b: new SqlAccountMailRows(new PgExecutor(e.other.pool)) };
  });
});
