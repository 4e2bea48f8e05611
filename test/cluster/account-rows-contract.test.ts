import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAccountRows } from '../../src/db/shared/account-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import type { AccountRows } from '../../src/domain/account-rows.js';
import { Accounts } from '../../src/domain/accounts.js';
import { AppError } from '../../src/domain/errors.js';
import { hashToken } from '../../src/domain/tokens.js';
import { ManualClock } from '../../src/lib/clock.js';
import { IdGenerator } from '../../src/lib/ids.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle } from './engines.js';

/**
 * One contract, two engines, for the account rows through the real Accounts use cases: workspaces,
 * users, members, channels (public and private) and tokens. `b` is a second node: its own
 * connection, its own Accounts, so a slug or an address raced for by two nodes ends the same way
 * on both engines (one wins, the other gets the clean conflict, never a raw driver error).
 */
interface Engine extends EngineHandle {
  rows: AccountRows;
  otherRows: AccountRows;
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.code : String(err)),
  );

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let a: Accounts;
  let b: Accounts;
  const clock = new ManualClock(1_700_000_000_000);
  const tick = () => clock.advance(1000);
  beforeAll(async () => {
    e = await open();
    a = new Accounts(e.rows, new IdGenerator(() => clock.now()), clock, 'ab');
    b = new Accounts(e.otherRows, new IdGenerator(() => clock.now() + 1), clock, 'ab');
  });
  afterAll(() => e.close());

  it('creates a workspace, its owner and members, oldest membership first', async () => {
    const ws = await a.createWorkspace('  Acme ');
    expect(ws.name).toBe('Acme');
    expect(await b.requireWorkspace(ws.id)).toEqual(ws);
    const olive = await a.createUser('olive@acme.test', 'Olive');
    tick();
    const max = await b.createUser('Max@Acme.test');
    expect(max.name).toBe('Max');
    await a.addMember(ws.id, olive.id, 'owner');
    tick();
    await b.addMember(ws.id, 'max@acme.test');
    tick();
    await a.addMember(ws.id, max.id, 'admin'); // an upsert: the role changes, the membership stays
    expect(await b.listMembers(ws.id)).toEqual([
      { ...olive, role: 'owner' },
      { ...max, role: 'admin' },
    ]);
    expect(await b.workspacesOf(max.id)).toEqual([{ id: ws.id, name: 'Acme', role: 'admin' }]);
    expect(await b.findUser('OLIVE@acme.test')).toEqual({ ...olive, emailVerified: true });
    expect(await codeOf(a.requireWorkspace('ws_nope'))).toBe('not-found');
  });

  it('refuses an e-mail address taken by another node, whatever its case', async () => {
    expect(await codeOf(b.createUser('OLIVE@ACME.test'))).toBe('email-taken');
    const sam = await a.createUser('sam@acme.test');
    expect(await b.changeEmail(sam.id, 'Olive@acme.test', { verified: true })).toBe(false);
    expect(await b.changeEmail(sam.id, 'samuel@acme.test', { verified: true })).toBe(true);
    expect((await a.findUser(sam.id))?.email).toBe('samuel@acme.test');
  });

  it('an unverified address reserves nothing and matches no verified look-up; its holder stays findable by id', async () => {
    const olive = (await a.findUserByVerifiedEmail('olive@ACME.test'))!;
    const sam = await a.createUser('sam@acme.test');
    // Unverified: stored even though Olive holds it verified, and Olive stays the one it resolves to.
    expect(await b.changeEmail(sam.id, 'OLIVE@acme.test', { verified: false })).toBe(true);
    expect(await a.findUser(sam.id)).toEqual({ id: sam.id, email: 'OLIVE@acme.test', name: 'sam', emailVerified: false });
    expect((await b.findUser('olive@acme.test'))?.id).toBe(olive.id);
    expect((await b.findUserByVerifiedEmail('olive@acme.test'))?.id).toBe(olive.id);
    // A free address held only unverified: findUser finds it (password sign-in), the verified look-up does not.
    const uma = await b.createUser('uma@acme.test', 'Uma', { verified: false });
    expect((await a.findUser('UMA@acme.test'))?.id).toBe(uma.id);
    expect(await a.findUserByVerifiedEmail('uma@acme.test')).toBeUndefined();
    // Someone proving it later takes it without a clash; the unverified holder keeps it, unverified.
    const ursula = await a.createUser('Uma@Acme.test', 'Ursula');
    expect((await b.findUserByVerifiedEmail('uma@acme.test'))?.id).toBe(ursula.id);
    expect((await b.findUser('uma@acme.test'))?.id).toBe(ursula.id);
    expect(await a.findUser(uma.id)).toMatchObject({ email: 'uma@acme.test', emailVerified: false });
    // The operator's change is verified, and refused while another account holds the address verified.
    expect(await codeOf(b.setVerifiedEmail(uma.id, 'UMA@acme.test'))).toBe('email-taken');
    expect(await b.setVerifiedEmail(uma.id, 'uma.m@acme.test')).toEqual({ id: uma.id, email: 'uma.m@acme.test', emailVerified: true });
  });

  it('two nodes racing for one slug: one channel, and the loser gets a clean slug-taken', async () => {
    const ws = await a.createWorkspace('Race');
    const results = await Promise.all([codeOf(a.createChannel({ workspaceId: ws.id, name: 'Deploys' })), codeOf(b.createChannel({ workspaceId: ws.id, name: 'Deploys' }))]);
    expect(results.sort()).toEqual(['ok', 'slug-taken']);
    expect(await e.query<{ n: number }>('SELECT count(*) AS n FROM channels WHERE workspace_id = ?', [ws.id])).toEqual([{ n: 1 }]);
    // Another workspace may use the slug.
    const other = await b.createWorkspace('Other');
    expect((await b.createChannel({ workspaceId: other.id, name: 'Deploys' })).slug).toBe('deploys');
    expect(await codeOf(a.requireChannel('deploys'))).toBe('invalid-body'); // the slug is in two workspaces
    expect((await a.requireChannel('deploys', other.id)).workspaceId).toBe(other.id);
  });

  it('private channels are seen by their members only; leaving the workspace drops them', async () => {
    const ws = await a.createWorkspace('Vis');
    const owner = await a.createUser('owner@vis.test');
    const guest = await a.createUser('guest@vis.test');
    await a.addMember(ws.id, owner.id, 'owner');
    await a.addMember(ws.id, guest.id);
    const pub = await a.createChannel({ workspaceId: ws.id, name: 'General' });
    tick();
    const priv = await b.createChannel({ workspaceId: ws.id, name: 'Security', isPrivate: true, icon: '🔒' });
    expect(priv).toMatchObject({ slug: 'security', isPrivate: true, icon: '🔒' });
    await a.addChannelMember(priv.id, owner.id);
    const names = async (userId: string) => (await b.visibleChannels(ws.id, userId)).map((c) => [c.slug, c.isPrivate, c.alertCount]);
    expect(await names(owner.id)).toEqual([['general', false, 0], ['security', true, 0]]);
    expect(await names(guest.id)).toEqual([['general', false, 0]]);
    expect(await b.channelMembers(priv.id)).toEqual([owner]);
    expect(await b.requireChannelOfUser(owner.id, 'security')).toEqual(priv);
    expect(await b.channelInWorkspace(ws.id, pub.id)).toEqual(pub);
    expect(await b.channelInWorkspace('ws_other', pub.id)).toBeUndefined();
    const stranger = await a.createUser('stranger@else.test');
    expect(await codeOf(a.addChannelMember(priv.id, stranger.id))).toBe('not-found');

    await a.updateChannel(priv.id, { name: 'Sec', icon: '🛡️' });
    await a.setSigningSecret(priv.id, 's'.repeat(32));
    expect(await b.hasSigningSecret('security')).toBe(true);
    const rotated = await a.rotateWebhook(priv.id);
    expect(await b.requireChannel(priv.id)).toMatchObject({ name: 'Sec', icon: '🛡️', webhookToken: rotated.webhookToken });

    await b.removeMember(ws.id, owner.id);
    expect(await a.channelMembers(priv.id)).toEqual([]);
    expect(await codeOf(b.removeMember(ws.id, owner.id))).toBe('not-found');
    expect(await codeOf(a.removeChannelMember(priv.id, owner.id))).toBe('not-found');
  });

  it('creates, lists and revokes tokens; only the hash is stored', async () => {
    const ws = await a.createWorkspace('Tok');
    const u = await a.createUser('tok@acme.test');
    expect(await codeOf(a.createToken(ws.id, u.id))).toBe('not-found'); // not a member yet
    await a.addMember(ws.id, u.id);
    const t = await a.createToken(ws.id, u.id, ' laptop ');
    tick();
    await b.createToken(ws.id, u.id);
    expect(await e.query<{ h: string }>('SELECT token_hash AS h FROM api_tokens WHERE id = ?', [t.id])).toEqual([{ h: hashToken(t.token) }]);
    const listed = await b.listTokens(ws.id);
    expect(listed.map((r) => [r.name, r.hint, r.revokedAt])).toEqual([['laptop', `…${t.token.slice(-4)}`, null], ['API token', expect.stringMatching(/^…/), null]]);
    tick();
    const revoked = await b.revokeToken(t.id);
    expect(revoked.revokedAt).toBe(new Date(clock.now()).toISOString());
    tick();
    expect((await a.revokeToken(t.id)).revokedAt).toBe(revoked.revokedAt); // revoking twice keeps the first time
    expect((await a.listTokens(ws.id))[0]?.revokedAt).toBe(revoked.revokedAt);
    expect(await codeOf(a.revokeToken('tok_nope'))).toBe('not-found');
  });
}

describe('account rows on SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine([]);
    return { ...h, rows: new SqlAccountRows(new SqliteExecutor(h.db.sqlite)), otherRows: new SqlAccountRows(new SqliteExecutor(h.other.sqlite)) };
  });
});

describePg('account rows on PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine([]);
    return { ...h, rows: new SqlAccountRows(new PgExecutor(h.db.pool)), otherRows: new SqlAccountRows(new PgExecutor(h.other.pool)) };
  });
});
