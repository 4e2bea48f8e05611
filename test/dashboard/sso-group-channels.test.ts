import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, throughProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

// Groups → private channels (docs/sso.md "Groups → roles and private channels"), on either engine
// (TEST_ENGINE=postgres runs this file on PostgreSQL: vitest.config.ts ON_POSTGRES).
let op: TestProvider;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let oncall: { id: string; slug: string };

beforeAll(async () => {
  op = await startTestProvider();
  h = await startDashboard({ env: { OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_SCOPES: 'openid email profile groups' } });
  await op.register(h.config.publicUrl);
  seed = await seedWorkspace(h.services);
  oncall = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'On-call', slug: 'oncall', isPrivate: true });
  await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Finance', slug: 'finance', isPrivate: true });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await op?.close();
});

async function signIn(sub: string, groups: string[]) {
  op.accounts.set(sub, { email: `${sub}@elsewhere.test`, email_verified: true, groups });
  op.nextLogin = sub;
  const client = new DashClient(h, 'http');
  const started = await client.post('/auth/oidc/start', { next: '/' }, { csrf: null });
  const back = new URL(await throughProvider(started.res.headers.get('location')!, h.config.publicUrl));
  expect((await client.get(back.pathname + back.search)).res.status).toBe(303);
  return client;
}

const cli = async (...argv: string[]) => {
  const r = await runAdmin(argv, cliEnv(h));
  return { code: r.code, out: JSON.parse(r.stdout || '{}') as Record<string, unknown>, err: r.stderr };
};

/** The private channels the person sees in the dashboard's channel list. */
async function seenChannels(client: DashClient): Promise<string[]> {
  const html = (await client.get('/channels')).html;
  return ['On-call', 'Finance', 'Security'].filter((name) => html.includes(`>${name}<`));
}

async function userId(sub: string): Promise<string> {
  return (await h.query<{ id: string }>('SELECT id FROM users WHERE email = ?', [`${sub}@elsewhere.test`]))[0]!.id;
}

describe('groups → private channels', () => {
  it('gives the mapped channels at sign-in and takes them away when the group goes, audited as the provider', async () => {
    const mapped = await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'sre', '--role', 'member', '--channel', 'oncall', '--channel', 'finance');
    expect(mapped.code, mapped.err).toBe(0);
    expect(mapped.out.channels).toEqual([expect.objectContaining({ slug: 'oncall' }), expect.objectContaining({ slug: 'finance' })]);
    await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'money', '--role', 'member', '--channel', 'finance');
    expect(await seenChannels(await signIn('ana', ['sre']))).toEqual(['On-call', 'Finance']);
    // Still in one group that opens Finance: only On-call goes.
    expect(await seenChannels(await signIn('ana', ['money']))).toEqual(['Finance']);
    // Out of every mapped group: the membership and the last channel go.
    await signIn('ana', []);
    expect(await h.query('SELECT channel_id FROM channel_members WHERE user_id = ?', [await userId('ana')])).toEqual([]);
    expect(await h.query('SELECT role FROM memberships WHERE user_id = ?', [await userId('ana')])).toEqual([]);
    const audit = (await h.services.accountAuth.audit.list(seed.ws.id, 50)).filter((a) => a.target?.includes('ana@') && a.action.startsWith('channel.'));
    expect(audit.map((a) => `${a.action} ${a.target}`).reverse()).toEqual([
      'channel.member-added ana@elsewhere.test to On-call by the identity provider',
      'channel.member-added ana@elsewhere.test to Finance by the identity provider',
      'channel.member-removed ana@elsewhere.test from On-call by the identity provider',
    ]);
    // Finance went with the membership itself, as for any removed member.
    expect((await h.services.accountAuth.audit.list(seed.ws.id, 50)).some((a) => a.action === 'member.removed' && a.target?.startsWith('ana@'))).toBe(true);
  });

  it('leaves channel access given by hand alone, even after the mapping once gave it', async () => {
    await signIn('bo', ['sre']);
    const bo = await userId('bo');
    // An admin takes On-call away by hand, then gives it again by hand: that access is theirs now.
    await h.services.accounts.removeChannelMember(oncall.id, bo);
    await h.services.accounts.addChannelMember(oncall.id, bo);
    // Security was given by hand from the start.
    await h.services.accounts.addChannelMember(seed.secret.id, bo);
    // Still a member through another group, out of `sre`: only Finance, which the mapping gave, goes.
    await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'staff-only', '--role', 'member');
    expect(await seenChannels(await signIn('bo', ['staff-only']))).toEqual(['On-call', 'Security']);
  });

  it('refuses a public channel or another workspace’s channel in a mapping', async () => {
    const general = seed.general.slug;
    const pub = await cli('sso', 'map-group', '--workspace', seed.ws.id, '--group', 'x', '--role', 'member', '--channel', general);
    expect(pub.code).not.toBe(0);
    expect(pub.err).toContain('is public');
    const otherWs = await h.services.accounts.createWorkspace('Elsewhere');
    const foreign = await cli('sso', 'map-group', '--workspace', otherWs.id, '--group', 'x', '--role', 'member', '--channel', oncall.id);
    expect(foreign.code).not.toBe(0);
    expect((await cli('sso', 'groups', '--workspace', otherWs.id)).out.mappings).toEqual([]);
  });
});

describe('the owners’ page', () => {
  const PATH = '/members/sso-groups';

  it('lists the mappings with their channels and member counts, adds one and removes one (Post/Redirect/Get)', async () => {
    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);
    expect((await owner.get('/members')).html).toContain(`href="${PATH}"`);
    const listed = await owner.get(PATH);
    expect(listed.res.status).toBe(200);
    expect(listed.html).toMatch(/<th scope="row">sre<\/th><td data-label="Role">member<\/td><td data-label="Channels">#oncall, #finance<\/td>/);
    expect(listed.html).toMatch(/<th scope="row">staff-only<\/th>.*?<td data-label="Members">1<\/td>/s);

    const added = await owner.submit(PATH, { group: 'db-admins', role: 'admin', [`channel_${oncall.id}`]: 'on' });
    expect(added.posted.status).toBe(303);
    expect(added.location?.split('?')[0]).toBe(PATH);
    expect(added.html).toContain('Group “db-admins” now gives the admin role and access to #oncall');
    expect(added.html).toMatch(/<th scope="row">db-admins<\/th><td data-label="Role">admin<\/td><td data-label="Channels">#oncall<\/td>/);
    // A reload shows the page, not the action again.
    expect((await owner.get(PATH)).html).not.toContain('now gives the admin role');

    const removed = await owner.submit(`${PATH}/unmap`, { group: 'db-admins' });
    expect(removed.posted.status).toBe(303);
    expect(removed.html).toContain('Group “db-admins” is no longer mapped');
    expect(removed.html).not.toContain('<th scope="row">db-admins</th>');
    expect((await owner.post(`${PATH}/unmap`, { group: 'db-admins' })).res.status).toBe(404);
    const audit = (await h.services.accountAuth.audit.list(seed.ws.id, 10)).map((a) => `${a.action} ${a.target}`);
    expect(audit).toContain('sso.group-mapped db-admins → admin and #oncall');
    expect(audit).toContain('sso.group-unmapped db-admins');
  });

  it('shows each error next to its field and keeps what was typed', async () => {
    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);
    await owner.get(PATH);
    const empty = await owner.post(PATH, { group: '  ', role: 'member' });
    expect(empty.res.status).toBe(400);
    expect(empty.html).toMatch(/id="f-group"[^>]*aria-invalid="true"[^>]*aria-describedby="f-group-hint f-group-error"/);
    expect(empty.html).toContain('id="f-group-error">Enter the group’s name');
    const foreign = await owner.post(PATH, { group: 'ops', role: 'owner', [`channel_${seed.general.id}`]: 'on' });
    expect(foreign.res.status).toBe(400);
    expect(foreign.html).toContain('id="channels-error">Choose among the private channels listed');
    expect(foreign.html).toContain('value="ops"');
    expect((await owner.post(PATH, { group: 'ops', role: 'emperor' })).res.status).toBe(400);
    expect((await owner.post(PATH, { group: 'ops', role: 'member' }, { csrf: null })).res.status).toBe(403);
    expect((await owner.post(PATH, { group: 'x'.repeat(201), role: 'member' })).html).toContain('At most 200 characters');
    expect((await h.services.sso.signOn.rows.mappings(seed.ws.id)).map((m) => m.group)).not.toContain('ops');
  });

  it('refuses admins and members, and does not offer them the link', async () => {
    const admin = await h.services.accounts.createUser('admin@acme.test', 'Ada Admin');
    await h.services.accounts.addMember(seed.ws.id, admin.id, 'admin');
    for (const id of [admin.id, seed.member.id]) {
      const client = new DashClient(h);
      await client.signInWithLink(id);
      expect((await client.get('/members')).html).not.toContain(`href="${PATH}"`);
      const page = await client.get(PATH);
      expect(page.res.status).toBe(403);
      expect(page.html).not.toContain('sre');
      expect((await client.post(PATH, { group: 'mine', role: 'owner' })).res.status).toBe(403);
      expect((await client.post(`${PATH}/unmap`, { group: 'sre' })).res.status).toBe(403);
    }
    expect((await h.services.sso.signOn.rows.mappings(seed.ws.id)).map((m) => m.group)).toEqual(['money', 'sre', 'staff-only']);
  });
});
