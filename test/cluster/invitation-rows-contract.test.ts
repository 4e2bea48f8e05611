import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAccountRows } from '../../src/db/shared/account-rows.js';
import { SqlInvitationRows } from '../../src/db/shared/invitation-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { AccountRows } from '../../src/domain/account-rows.js';
import { Invitations, type InvitationRows } from '../../src/domain/auth/invitations.js';
import { digest } from '../../src/domain/auth/secrets.js';
import { ManualClock } from '../../src/lib/clock.js';
import { IdGenerator } from '../../src/lib/ids.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the invitations rows through the real Invitations use cases. `a`
 * and `b` are two nodes on their own connections: an invitation used on both at the same moment is
 * accepted once, and an acceptance that finds the address taken leaves nothing behind.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Beta', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'olive@a.test', name: 'Olive', created_at: 1 }, { id: 'u2', email: 'Sam@B.test', name: 'Sam', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }, { workspace_id: 'w2', user_id: 'u2', role: 'owner', created_at: 1 }]],
];
const HOUR = 3_600_000;
const TTL = 168 * HOUR;

interface Engine extends EngineHandle {
  a: { invitations: InvitationRows; accounts: AccountRows };
  b: { invitations: InvitationRows; accounts: AccountRows };
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  const clock = new ManualClock(1_700_000_000_000);
  const node = (rows: Engine['a'], offset: number) =>
    new Invitations(rows.invitations, (email) => rows.accounts.userByVerifiedEmail(email), new IdGenerator(() => clock.now() + offset), clock, TTL);
  let a: Invitations;
  let b: Invitations;
  beforeAll(async () => {
    e = await open();
    a = node(e.a, 0);
    b = node(e.b, 1);
  });
  afterAll(() => e.close());
  const stateOf = async (id: string) => (await e.query<{ state: string }>('SELECT state FROM invitations WHERE id = ?', [id]))[0]?.state;
  const roleIn = async (ws: string, user: string) => (await e.query<{ role: string }>('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?', [ws, user]))[0]?.role;

  it('stores an invitation with only the hash of its secret; re-inviting the address (any case) re-issues it', async () => {
    const first = await a.invite({ workspaceId: 'w1', email: ' new@a.test ', role: 'member', invitedBy: 'u1' });
    expect(first.reissued).toBe(false);
    expect(first.invitation).toMatchObject({ workspaceId: 'w1', workspaceName: 'Acme', email: 'new@a.test', role: 'member', invitedBy: 'u1', inviterName: 'Olive', state: 'pending', sentByMail: false, expiresAt: clock.now() + TTL });
    expect(await e.query('SELECT token_hash FROM invitations')).toEqual([{ token_hash: digest(first.secret) }]);
    clock.advance(1000);
    const again = await b.invite({ workspaceId: 'w1', email: 'NEW@a.test', role: 'admin', invitedBy: 'u1' });
    expect(again.reissued).toBe(true);
    expect(again.invitation.id).toBe(first.invitation.id);
    expect(again.invitation.role).toBe('admin');
    expect(await a.open(first.secret)).toBeUndefined();
    expect((await a.open(again.secret))?.invitation.id).toBe(first.invitation.id);
    await b.markSentByMail(again.invitation.id, again.secret);
    await b.markSentByMail(again.invitation.id, first.secret); // an old secret marks nothing
    expect((await a.pendingOfWorkspace('w1')).map((i) => [i.email, i.sentByMail])).toEqual([['new@a.test', true]]);
    // Another workspace may invite the same address.
    await a.invite({ workspaceId: 'w2', email: 'new@a.test', role: 'member', invitedBy: 'u2' });
    expect(await e.query<{ n: number }>('SELECT count(*) AS n FROM invitations')).toEqual([{ n: 2 }]);
  });

  it('two nodes accepting one link at once: one account, one membership, the other finds it gone', async () => {
    const { invitation, secret } = await a.invite({ workspaceId: 'w1', email: 'race@a.test', role: 'member', invitedBy: 'u1' });
    expect((await b.open(secret))?.account).toBeUndefined();
    const results = await Promise.all([a.acceptAsNewUser(secret, 'Racer A'), b.acceptAsNewUser(secret, 'Racer B')]);
    expect(results.map((r) => r.status).sort()).toEqual(['accepted', 'gone']);
    const won = results.find((r) => r.status === 'accepted')!;
    const users = await e.query<{ id: string }>("SELECT id FROM users WHERE email = 'race@a.test'");
    expect(users).toHaveLength(1);
    expect('userId' in won && won.userId).toBe(users[0]!.id);
    expect(await roleIn('w1', users[0]!.id)).toBe('member');
    expect(await stateOf(invitation.id)).toBe('accepted');
    expect(await a.open(secret)).toBeUndefined();
  });

  it('an address that has an account: the link makes nothing, and only that account accepts it', async () => {
    const { invitation, secret } = await a.invite({ workspaceId: 'w1', email: 'sam@b.test', role: 'admin', invitedBy: 'u1' });
    expect((await b.open(secret))?.account?.id).toBe('u2');
    expect(await b.acceptAsNewUser(secret, 'Mallory')).toEqual({ status: 'taken' });
    expect(await stateOf(invitation.id)).toBe('pending');
    expect(await e.query<{ n: number }>("SELECT count(*) AS n FROM users WHERE lower(email) = 'sam@b.test'")).toEqual([{ n: 1 }]);
    // Olive is not sam@b.test: she sees nothing and accepts nothing.
    const olive = { id: 'u1', email: 'olive@a.test' };
    expect(await a.pendingFor(olive)).toEqual([]);
    expect(await a.acceptFor(olive, invitation.id)).toBeUndefined();
    // A user claiming Sam's address without being his account gets nothing either.
    expect(await a.pendingFor({ id: 'u1', email: 'Sam@B.test' })).toEqual([]);
    const sam = { id: 'u2', email: 'Sam@B.test' };
    expect((await b.pendingFor(sam)).map((i) => i.id)).toEqual([invitation.id]);
    const both = await Promise.all([a.acceptFor(sam, invitation.id), b.acceptFor(sam, invitation.id)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await roleIn('w1', 'u2')).toBe('admin');
    expect(await b.declineFor(sam, invitation.id)).toBeUndefined();
  });

  it('declines, withdraws, re-issues only what is pending in the workspace, and expires', async () => {
    const sam = { id: 'u2', email: 'sam@b.test' };
    const declined = await a.invite({ workspaceId: 'w1', email: 'sam@b.test', role: 'member', invitedBy: 'u1' });
    expect(await b.declineFor(sam, declined.invitation.id)).toMatchObject({ id: declined.invitation.id });
    expect(await stateOf(declined.invitation.id)).toBe('declined');
    expect(await a.reissue('w1', declined.invitation.id, 'u1')).toBeUndefined();

    const later = await a.invite({ workspaceId: 'w1', email: 'later@a.test', role: 'member', invitedBy: 'u1' });
    expect(await b.withdraw('w2', later.invitation.id)).toBeUndefined(); // another workspace's
    expect(await b.reissue('w2', later.invitation.id, 'u2')).toBeUndefined();
    clock.advance(TTL);
    expect(await a.open(later.secret)).toBeUndefined();
    expect(await a.acceptAsNewUser(later.secret, 'Late')).toEqual({ status: 'gone' });
    expect((await a.pendingOfWorkspace('w1')).map((i) => i.email)).toContain('later@a.test');
    const revived = (await b.reissue('w1', later.invitation.id, 'u1'))!;
    expect(revived.invitation.expiresAt).toBe(clock.now() + TTL);
    expect(await a.open(later.secret)).toBeUndefined();
    expect((await a.open(revived.secret))?.invitation.id).toBe(later.invitation.id);
    expect(await a.withdraw('w1', later.invitation.id)).toMatchObject({ email: 'later@a.test' });
    expect(await b.withdraw('w1', later.invitation.id)).toBeUndefined();
    expect(await a.open(revived.secret)).toBeUndefined();
  });
}

describe('invitation rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    const rows = (db: typeof e.db) => {
      const database = new SqliteExecutor(db.sqlite);
      return { invitations: new SqlInvitationRows(database), accounts: new SqlAccountRows(database) };
    };
    return { ...e, a: rows(e.db), b: rows(e.other) };
  });
});

describePg('invitation rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    const rows = (pool: typeof e.db.pool) => {
      const database = new PgExecutor(pool);
      return { invitations: new SqlInvitationRows(database), accounts: new SqlAccountRows(database) };
    };
    return { ...e, a: rows(e.db.pool), b: rows(e.other.pool) };
  });
});
