import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

// Sign-in by an authenticating proxy's header, over real HTTP from 127.0.0.1 (docs/sso.md).
let trusted: DashHarness;
let untrusted: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const proxyEnv = (addresses: string) => ({ TRUST_AUTH_HEADER: 'Remote-Email', TRUST_GROUPS_HEADER: 'Remote-Groups', AUTH_PROXY_ADDRESSES: addresses });

beforeAll(async () => {
  trusted = await startDashboard({ env: proxyEnv('127.0.0.1/32, ::1') });
  untrusted = await startDashboard({ env: proxyEnv('10.0.0.0/8') });
  seed = await seedWorkspace(trusted.services);
  await seedWorkspace(untrusted.services);
}, 60_000);

afterAll(async () => {
  await trusted?.close();
  await untrusted?.close();
});

const asProxy = (email: string, extra: Record<string, string> = {}) => ({ 'remote-email': email, ...extra });

async function open(h: DashHarness, client: DashClient, headers: Record<string, string>) {
  const res = await fetch(`${h.config.publicUrl}/profile`, { redirect: 'manual', headers: { accept: 'text/html', cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...headers } });
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [k, v] = pair!.split('=') as [string, string];
    if (v) client.cookies.set(k, v);
    else client.cookies.delete(k);
  }
  return { res, html: await res.text() };
}

describe('authenticating proxy', () => {
  it('start-up refuses TRUST_AUTH_HEADER without AUTH_PROXY_ADDRESSES', () => {
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', TRUST_AUTH_HEADER: 'Remote-Email' })).toThrow(ConfigError);
  });

  it('signs in the verified account the header names, from a trusted peer only', async () => {
    const client = new DashClient(trusted, 'http');
    const first = await open(trusted, client, asProxy('member@acme.test'));
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get('location')).toBe('/profile');
    const page = await open(trusted, client, asProxy('member@acme.test'));
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('member@acme.test');
    // From an untrusted peer the header is nobody's word, X-Forwarded-For or not.
    const outsider = new DashClient(untrusted, 'http');
    const refused = await open(untrusted, outsider, asProxy('member@acme.test', { 'x-forwarded-for': '10.0.0.5' }));
    expect(refused.res.status).toBe(303);
    expect(refused.res.headers.get('location')).toMatch(/^\/sign-in/);
  });

  it('refuses an unverified address, and ends the session when the header names someone else', async () => {
    await trusted.services.accounts.createUser('drifter@acme.test', 'Drifter', { verified: false });
    const client = new DashClient(trusted, 'http');
    expect((await open(trusted, client, asProxy('drifter@acme.test'))).res.headers.get('location')).toMatch(/^\/sign-in/);
    await open(trusted, client, asProxy('member@acme.test'));
    const before = client.cookies.get('ab_session');
    expect((await open(trusted, client, asProxy('member@acme.test'))).res.status).toBe(200);
    const switched = await open(trusted, client, asProxy('owner@acme.test'));
    expect(switched.res.status).toBe(303);
    expect(await trusted.services.accountAuth.sessions.resolve(before!)).toBeUndefined();
    expect((await open(trusted, client, asProxy('owner@acme.test'))).html).toContain('owner@acme.test');
  });

  it('never applies to the API', async () => {
    const res = await fetch(`${trusted.config.publicUrl}/api/channels`, { headers: asProxy('owner@acme.test') });
    expect(res.status).toBe(401);
  });

  it('applies the group mapping from the groups header', async () => {
    const side = await trusted.services.accounts.createWorkspace('Side');
    await trusted.services.sso.signOn.setMapping({ workspaceId: side.id, group: 'ops', role: 'admin' });
    const client = new DashClient(trusted, 'http');
    await open(trusted, client, asProxy('owner@acme.test', { 'remote-groups': 'staff, ops' }));
    expect((await trusted.services.accounts.workspacesOf(seed.owner.id)).find((w) => w.id === side.id)?.role).toBe('admin');
  });

  it('gives and takes the mapped private channels from the groups header', async () => {
    const a = trusted.services.accounts;
    const vault = await a.createChannel({ workspaceId: seed.ws.id, name: 'Vault', slug: 'vault', isPrivate: true });
    await trusted.services.sso.signOn.setMapping({ workspaceId: seed.ws.id, group: 'vault-keepers', role: 'member' }, ['vault']);
    const sees = async () => (await a.visibleChannels(seed.ws.id, seed.member.id)).some((ch) => ch.id === vault.id);
    const client = new DashClient(trusted, 'http');
    // The proxy's session follows the header at each request; a new client is a new sign-in.
    await open(trusted, client, asProxy('member@acme.test', { 'remote-groups': 'vault-keepers' }));
    expect(await sees()).toBe(true);
    await open(trusted, new DashClient(trusted, 'http'), asProxy('member@acme.test', { 'remote-groups': 'staff' }));
    expect(await sees()).toBe(false);
    // The member was added by hand: their membership stays, only the mapping's channel went.
    expect((await a.workspacesOf(seed.member.id)).find((w) => w.id === seed.ws.id)?.role).toBe('member');
  });
});
