import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAuditRows, SqlPasswordRows, SqlSessionRows, SqlSignInLinkRows } from '../../src/db/shared/auth-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { AuditLog, type AuditRows } from '../../src/domain/auth/audit.js';
import { Passwords, type PasswordRows } from '../../src/domain/auth/passwords.js';
import { digest } from '../../src/domain/auth/secrets.js';
import { REAUTH_WINDOW_MS, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, Sessions, type SessionRows } from '../../src/domain/auth/sessions.js';
import { EMAIL_CONFIRMATION_TTL_MS, SIGN_IN_LINK_TTL_MS, SignInLinks, type SignInLinkRows } from '../../src/domain/auth/sign-in-links.js';
import { ManualClock } from '../../src/lib/clock.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the dashboard's auth rows: sessions, sign-in links, passwords and
 * the audit log, through the real use cases. Two nodes (`a` and `b`, each on its own connection to
 * the same database) share nothing but the database: what one writes the other sees at once, and a
 * link pressed on both at the same moment signs in exactly once.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Beta', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }, { id: 'u2', email: 'm@a.test', name: 'Member', created_at: 1 }]],
  ['memberships', [
    { workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 },
    { workspace_id: 'w2', user_id: 'u1', role: 'owner', created_at: 1 },
    { workspace_id: 'w1', user_id: 'u2', role: 'member', created_at: 1 },
  ]],
];
/** Cheap scrypt parameters: the contract is about rows, not hashing cost. */
const SCRYPT = { N: 2 ** 12, r: 8, p: 1 };
const DAY = 24 * 60 * 60_000;

interface AuthRows {
  sessions: SessionRows;
  links: SignInLinkRows;
  passwords: PasswordRows;
  audit: AuditRows;
}
interface Engine extends EngineHandle {
  a: AuthRows;
  b: AuthRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  const clock = new ManualClock(1_700_000_000_000);
  const node = (rows: AuthRows) => ({
    sessions: new Sessions(rows.sessions, clock),
    links: new SignInLinks(rows.links, clock),
    passwords: new Passwords(rows.passwords, clock, SCRYPT),
    audit: new AuditLog(rows.audit, clock),
  });
  let a: ReturnType<typeof node>;
  let b: ReturnType<typeof node>;
  beforeAll(async () => {
    e = await open();
    a = node(e.a);
    b = node(e.b);
  });
  afterAll(() => e.close());
  const lastSeen = async (idHash: string) => (await e.query<{ v: number }>('SELECT last_seen_at AS v FROM sessions WHERE id_hash = ?', [idHash]))[0]?.v;

  it('issues a session another node resolves, stores only its hash, and tells a new device from a known one', async () => {
    const t0 = clock.now();
    const first = await a.sessions.create('u1', 'w1', { clientAddress: '10.0.0.1', userAgent: 'Firefox' });
    expect(first.newDevice).toBe(true);
    expect(first.session).toEqual({ idHash: digest(first.secret), userId: 'u1', workspaceId: 'w1', createdAt: t0, lastSeenAt: t0, authenticatedAt: t0, expiresAt: t0 + SESSION_ABSOLUTE_MS });
    expect(await b.sessions.resolve(first.secret)).toEqual(first.session);
    expect(await e.query('SELECT user_id, client_address, user_agent FROM sessions WHERE id_hash = ?', [first.secret])).toEqual([]);
    expect(await e.query('SELECT user_id, client_address, user_agent FROM sessions WHERE id_hash = ?', [first.session.idHash])).toEqual([
      { user_id: 'u1', client_address: '10.0.0.1', user_agent: 'Firefox' },
    ]);
    expect((await b.sessions.create('u1', 'w1', { clientAddress: '10.0.0.1', userAgent: 'Firefox' })).newDevice).toBe(false);
    expect((await b.sessions.create('u1', 'w1', { clientAddress: '10.0.0.2', userAgent: 'Firefox' })).newDevice).toBe(true);
    // No user agent is a device of its own, and the same one the next time (NULL matches NULL).
    expect((await a.sessions.create('u1', null, { clientAddress: '10.0.0.1' })).newDevice).toBe(true);
    expect((await b.sessions.create('u1', null, { clientAddress: '10.0.0.1' })).newDevice).toBe(false);
    expect((await a.sessions.create('u2', 'w1', { clientAddress: '10.0.0.1', userAgent: 'Firefox' })).newDevice).toBe(true);
    expect(await a.sessions.resolve('not a session secret')).toBeUndefined();
  });

  it("a re-authentication and a workspace switch on one node hold on the other", async () => {
    const { secret } = await a.sessions.create('u1', 'w1');
    clock.advance(REAUTH_WINDOW_MS);
    const onB = (await b.sessions.resolve(secret))!;
    expect(b.sessions.isRecentlyAuthenticated(onB)).toBe(false);
    await b.sessions.reauthenticated(onB);
    await b.sessions.switchWorkspace(onB, 'w2');
    const onA = (await a.sessions.resolve(secret))!;
    expect(a.sessions.isRecentlyAuthenticated(onA)).toBe(true);
    expect(onA).toMatchObject({ workspaceId: 'w2', authenticatedAt: clock.now() });
  });

  it('signing out on one node ends the session on every node; "everywhere" ends all of the user\'s and counts them', async () => {
    await e.exec('DELETE FROM sessions WHERE user_id = ?', ['u2']);
    const [s1, s2, s3] = [await a.sessions.create('u2', 'w1'), await b.sessions.create('u2', 'w1'), await b.sessions.create('u2', 'w1')];
    const owner = await a.sessions.create('u1', 'w1');
    await b.sessions.end(s1.session);
    expect(await a.sessions.resolve(s1.secret)).toBeUndefined();
    expect(await a.sessions.isLive(s2.session.idHash)).toBe(true);
    expect(await a.sessions.endAll('u2')).toBe(2);
    expect(await b.sessions.resolve(s2.secret)).toBeUndefined();
    expect(await b.sessions.isLive(s3.session.idHash)).toBe(false);
    expect(await b.sessions.resolve(owner.secret)).toBeDefined();
  });

  it('a session ends after 7 idle days or 30 days in all, is touched at most once a minute, and prune drops the dead', async () => {
    await e.exec('DELETE FROM sessions');
    const t0 = clock.now();
    const [idle, active, forgotten] = [await a.sessions.create('u1', 'w1'), await a.sessions.create('u1', 'w1'), await b.sessions.create('u2', 'w1')];
    clock.advance(30_000);
    await b.sessions.resolve(active.secret);
    expect(await lastSeen(active.session.idHash)).toBe(t0);
    clock.advance(30_000);
    expect((await b.sessions.resolve(active.secret))?.lastSeenAt).toBe(t0 + 60_000);
    expect(await lastSeen(active.session.idHash)).toBe(t0 + 60_000);
    clock.set(t0 + SESSION_IDLE_MS - 1);
    expect(await b.sessions.isLive(idle.session.idHash)).toBe(true);
    expect(await b.sessions.resolve(active.secret)).toBeDefined();
    clock.advance(1);
    expect(await a.sessions.isLive(idle.session.idHash)).toBe(false);
    expect(await a.sessions.resolve(idle.secret)).toBeUndefined();
    expect(await lastSeen(idle.session.idHash)).toBeUndefined();
    expect(await b.sessions.prune()).toBe(1);
    expect(await lastSeen(forgotten.session.idHash)).toBeUndefined();
    while (clock.now() + 6 * DAY < t0 + SESSION_ABSOLUTE_MS) {
      clock.advance(6 * DAY);
      expect(await (clock.now() % 2 ? a : b).sessions.resolve(active.secret)).toBeDefined();
    }
    clock.set(t0 + SESSION_ABSOLUTE_MS);
    expect(await a.sessions.isLive(active.session.idHash)).toBe(false);
    expect(await b.sessions.resolve(active.secret)).toBeUndefined();
    expect(await e.query('SELECT id_hash FROM sessions')).toEqual([]);
  });

  it('a sign-in link shows its owner, works once on any node, not after 15 minutes, and is pruned when expired', async () => {
    await e.exec('DELETE FROM sign_in_links');
    const link = await a.links.issue('u2');
    expect(link.expiresAt).toBe(clock.now() + SIGN_IN_LINK_TTL_MS);
    expect(await e.query('SELECT user_id FROM sign_in_links WHERE token_hash = ?', [link.secret])).toEqual([]);
    expect(await b.links.peek(link.secret)).toEqual({ userId: 'u2', email: 'm@a.test', name: 'Member', newEmail: null });
    expect(await b.links.consume(link.secret)).toEqual({ userId: 'u2', invite: false });
    expect(await a.links.consume(link.secret)).toBeUndefined();
    expect(await a.links.peek(link.secret)).toBeUndefined();
    const invite = await b.links.issue('u1', { invite: true });
    const late = await a.links.issue('u1');
    clock.advance(SIGN_IN_LINK_TTL_MS - 1);
    expect(await a.links.consume(invite.secret)).toEqual({ userId: 'u1', invite: true });
    expect(await b.links.prune()).toBe(0);
    clock.advance(1);
    expect(await b.links.peek(late.secret)).toBeUndefined();
    expect(await b.links.consume(late.secret)).toBeUndefined();
    expect(await a.links.prune()).toBe(3);
    expect(await e.query('SELECT token_hash FROM sign_in_links')).toEqual([]);
  });

  it('an address confirmation never signs in, works once for its own user only, for 24 hours', async () => {
    const confirm = await a.links.issueEmailConfirmation('u2', 'new@a.test');
    expect(confirm.expiresAt).toBe(clock.now() + EMAIL_CONFIRMATION_TTL_MS);
    expect(await b.links.peek(confirm.secret)).toBeUndefined();
    expect(await b.links.consume(confirm.secret)).toBeUndefined();
    expect(await b.links.peekEmailConfirmation(confirm.secret)).toEqual({ userId: 'u2', email: 'm@a.test', name: 'Member', newEmail: 'new@a.test' });
    expect(await a.links.consumeEmailConfirmation(confirm.secret, 'u1')).toBeUndefined();
    clock.advance(EMAIL_CONFIRMATION_TTL_MS - 1);
    expect(await a.links.consumeEmailConfirmation(confirm.secret, 'u2')).toBe('new@a.test');
    expect(await b.links.consumeEmailConfirmation(confirm.secret, 'u2')).toBeUndefined();
    const late = await a.links.issueEmailConfirmation('u2', 'late@a.test');
    clock.advance(EMAIL_CONFIRMATION_TTL_MS);
    expect(await b.links.peekEmailConfirmation(late.secret)).toBeUndefined();
    expect(await b.links.consumeEmailConfirmation(late.secret, 'u2')).toBeUndefined();
    // A sign-in link is no confirmation either.
    const signIn = await a.links.issue('u2');
    expect(await b.links.consumeEmailConfirmation(signIn.secret, 'u2')).toBeUndefined();
  });

  it('of eight presses of one link on two nodes at once, exactly one gets it', async () => {
    const { secret } = await a.links.issue('u1');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).links.consume(secret)));
    expect(results.filter((r) => r !== undefined)).toEqual([{ userId: 'u1', invite: false }]);
    expect(await e.query('SELECT used_at FROM sign_in_links WHERE token_hash = ?', [digest(secret)])).toEqual([{ used_at: clock.now() }]);
  });

  it('a password set on one node verifies on the other; a wrong, replaced or removed one and a user without one fail', async () => {
    expect(await b.passwords.hasPassword('u1')).toBe(false);
    await a.passwords.set('u1', 'correct horse battery');
    expect(await b.passwords.hasPassword('u1')).toBe(true);
    expect(await b.passwords.verify('u1', 'correct horse battery')).toBe(true);
    expect(await b.passwords.verify('u1', 'correct horse batterY')).toBe(false);
    expect(await b.passwords.verify('u2', 'correct horse battery')).toBe(false);
    expect(await b.passwords.verify(undefined, 'correct horse battery')).toBe(false);
    await b.passwords.set('u1', 'another long password');
    expect(await a.passwords.verify('u1', 'correct horse battery')).toBe(false);
    expect(await a.passwords.verify('u1', 'another long password')).toBe(true);
    expect(await e.query('SELECT user_id, updated_at FROM user_passwords')).toEqual([{ user_id: 'u1', updated_at: clock.now() }]);
    await a.passwords.remove('u1');
    expect(await b.passwords.hasPassword('u1')).toBe(false);
    expect(await b.passwords.verify('u1', 'another long password')).toBe(false);
  });

  it("audit entries written on both nodes list newest first, per workspace, with the actor's e-mail, limited", async () => {
    const t = clock.now();
    await a.audit.record('w1', 'u1', 'token.created', 'deploy (t1)', '10.0.0.1');
    clock.advance(1000);
    await b.audit.record('w1', null, 'member.removed', 'm@a.test', null);
    await b.audit.record('w2', 'u1', 'channel.created', 'ops (c9)', '::1');
    clock.advance(1000);
    await a.audit.record('w1', 'u2', 'channel.changed', 'general (c1)', '10.0.0.2');
    const list = await b.audit.list('w1');
    expect(list.map(({ id: _id, ...rest }) => rest)).toEqual([
      { at: new Date(t + 2000).toISOString(), actor: { id: 'u2', email: 'm@a.test' }, action: 'channel.changed', target: 'general (c1)', from: '10.0.0.2' },
      { at: new Date(t + 1000).toISOString(), actor: { id: null, email: null }, action: 'member.removed', target: 'm@a.test', from: null },
      { at: new Date(t).toISOString(), actor: { id: 'u1', email: 'o@a.test' }, action: 'token.created', target: 'deploy (t1)', from: '10.0.0.1' },
    ]);
    expect(list[0]!.id).toBeGreaterThan(list[1]!.id);
    expect(list[1]!.id).toBeGreaterThan(list[2]!.id);
    expect(await a.audit.list('w1', 2)).toEqual(list.slice(0, 2));
    expect((await a.audit.list('w2')).map((x) => x.action)).toEqual(['channel.created']);
  });
}

describe('auth rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    const rows = (s: typeof e.db.sqlite): AuthRows => ({
      sessions: new SqlSessionRows(new SqliteExecutor(s)),
      links: new SqlSignInLinkRows(new SqliteExecutor(s)),
      passwords: new SqlPasswordRows(new SqliteExecutor(s)),
      audit: new SqlAuditRows(new SqliteExecutor(s)),
    });
    return { ...e, a: rows(e.db.sqlite), b: rows(e.other.sqlite) };
  });
});

describePg('auth rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    const rows = (pool: typeof e.db.pool): AuthRows => ({
      sessions: new SqlSessionRows(new PgExecutor(pool)),
      links: new SqlSignInLinkRows(new PgExecutor(pool)),
      passwords: new SqlPasswordRows(new PgExecutor(pool)),
      audit: new SqlAuditRows(new PgExecutor(pool)),
    });
    return { ...e, a: rows(e.db.pool), b: rows(e.other.pool) };
  });
});
