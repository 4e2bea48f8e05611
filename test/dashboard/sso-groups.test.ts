import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, throughProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

// Memberships from the provider's groups, and OIDC_ONLY with its break-glass owner (docs/sso.md).
let op: TestProvider;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  op = await startTestProvider();
  h = await startDashboard({
    env: { OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_SCOPES: 'openid email profile groups', OIDC_ONLY: '1' },
  });
  await op.register(h.config.publicUrl);
  seed = await seedWorkspace(h.services);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await op?.close();
});

async function signIn(sub: string) {
  op.nextLogin = sub;
  const client = new DashClient(h, 'http');
  const started = await client.post('/auth/oidc/start', { next: '/' }, { csrf: null });
  const back = new URL(await throughProvider(started.res.headers.get('location')!, h.config.publicUrl));
  return { client, landed: await client.get(back.pathname + back.search) };
}

const cli = async (...argv: string[]) => {
  const r = await runAdmin(argv, cliEnv(h));
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout || '{}') as Record<string, unknown>;
};

async function roleIn(workspaceId: string, email: string): Promise<string | undefined> {
  const rows = await h.query<{ role: string }>('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.email = ?', [workspaceId, email]);
  return rows[0]?.role;
}

describe('group mapping', () => {
  it('adds, changes and removes the memberships it manages, and audits them as the provider', async () => {
    await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'ops', '--role', 'admin');
    await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'staff', '--role', 'member');
    const other = await h.services.accounts.createWorkspace('Side project');
    // A just-in-time account: no domain is allowed, but the mapping gives a membership.
    op.accounts.set('gus', { email: 'gus@elsewhere.test', email_verified: true, groups: ['ops', 'staff'] });
    expect((await signIn('gus')).landed.res.status).toBe(303);
    expect(await roleIn(seed.ws.id, 'gus@elsewhere.test')).toBe('admin');
    const gus = (await h.query<{ id: string }>('SELECT id FROM users WHERE email = ?', ['gus@elsewhere.test']))[0]!.id;
    await h.services.accounts.addMember(other.id, gus, 'member'); // by hand: the mapping leaves it alone
    op.accounts.set('gus', { email: 'gus@elsewhere.test', email_verified: true, groups: ['staff'] });
    await signIn('gus');
    expect(await roleIn(seed.ws.id, 'gus@elsewhere.test')).toBe('member');
    op.accounts.set('gus', { email: 'gus@elsewhere.test', email_verified: true, groups: [] });
    await signIn('gus');
    expect(await roleIn(seed.ws.id, 'gus@elsewhere.test')).toBeUndefined();
    expect(await roleIn(other.id, 'gus@elsewhere.test')).toBe('member');
    const audit = await h.services.accountAuth.audit.list(seed.ws.id, 20);
    expect(audit.filter((a) => a.target?.includes('by the identity provider')).map((a) => a.action)).toEqual(['member.removed', 'member.role-changed', 'member.added']);
  });

  it('leaves hand-added memberships alone, and never demotes or removes the last owner', async () => {
    await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'staff', '--role', 'member');
    // The seeded member was added by hand: a mapped group does not change their role.
    op.accounts.set('max', { email: 'member@acme.test', email_verified: true, groups: ['ops'] });
    await h.services.sso.signOn.link(seed.member.id, op.issuer, 'max');
    await signIn('max');
    expect(await roleIn(seed.ws.id, 'member@acme.test')).toBe('member');
    // A workspace whose only owner the mapping made: losing the group leaves them owner.
    const solo = await h.services.accounts.createWorkspace('Solo');
    await cli('sso', 'map-group', '--workspace', solo.id, '--group', 'solo-owners', '--role', 'owner');
    op.accounts.set('olga', { email: 'olga@elsewhere.test', email_verified: true, groups: ['solo-owners'] });
    await signIn('olga');
    expect(await roleIn(solo.id, 'olga@elsewhere.test')).toBe('owner');
    op.accounts.set('olga', { email: 'olga@elsewhere.test', email_verified: true, groups: [] });
    await signIn('olga');
    expect(await roleIn(solo.id, 'olga@elsewhere.test')).toBe('owner');
  });
});

describe('OIDC_ONLY', () => {
  it('hides password and link sign-in from everyone but the break-glass owner', async () => {
    await h.services.accountAuth.passwords.set(seed.owner.id, 'correct horse battery');
    await h.services.accountAuth.passwords.set(seed.member.id, 'correct horse battery');
    const page = await new DashClient(h, 'http').get('/sign-in');
    expect(page.html).toContain('Sign in with single sign-on');
    expect(page.html).not.toContain('name="password"');
    const member = await new DashClient(h, 'http').post('/sign-in', { email: 'member@acme.test', password: 'correct horse battery', next: '/' }, { csrf: null });
    expect(member.res.status).toBe(401);
    const owner = () => new DashClient(h, 'http').post('/sign-in', { email: 'owner@acme.test', password: 'correct horse battery', next: '/' }, { csrf: null });
    expect((await owner()).res.status).toBe(401);
    expect((await runAdmin(['sso', 'break-glass', '--user', 'member@acme.test'], cliEnv(h))).code).not.toBe(0);
    await cli('sso', 'break-glass', '--user', 'owner@acme.test');
    expect((await new DashClient(h, 'http').get('/sign-in?break-glass')).html).toContain('name="password"');
    expect((await owner()).res.status).toBe(303);
  });
});
