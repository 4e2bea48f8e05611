import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../src/domain/auth/secrets.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, throughProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

// OpenID Connect sign-in against a real provider (oidc-provider) on loopback, over real HTTP (docs/sso.md).
let op: TestProvider;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  op = await startTestProvider();
  h = await startDashboard({
    env: {
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_SCOPES: 'openid email profile groups',
      OIDC_BUTTON_LABEL: 'Corp SSO',
      OIDC_ALLOWED_DOMAINS: 'corp.test',
      OIDC_LINK_BY_EMAIL: '1',
    },
  });
  await op.register(h.config.publicUrl);
  seed = await seedWorkspace(h.services);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await op?.close();
});

/** Presses "Sign in with …", goes through the provider as `sub`, and lands on the callback. */
async function signIn(sub: string, client = new DashClient(h, 'http'), tamper?: (u: URL) => void) {
  op.nextLogin = sub;
  const started = await client.post('/auth/oidc/start', { next: '/channels' }, { csrf: null });
  expect(started.res.status).toBe(303);
  const authorize = new URL(started.res.headers.get('location')!);
  const back = new URL(await throughProvider(authorize.href, h.config.publicUrl));
  tamper?.(back);
  const landed = await client.get(back.pathname + back.search);
  return { client, authorize, landed };
}

async function userIdOf(email: string): Promise<string | undefined> {
  return (await h.query<{ id: string }>('SELECT id FROM users WHERE email = ? ORDER BY created_at DESC', [email]))[0]?.id;
}

describe('OpenID Connect sign-in', () => {
  it('shows the button above the other ways in', async () => {
    const { html } = await new DashClient(h, 'http').get('/sign-in');
    expect(html).toContain('Sign in with Corp SSO');
    expect(html.indexOf('Sign in with Corp SSO')).toBeLessThan(html.indexOf('name="password"'));
  });

  it('signs in with PKCE, state and nonce, creating an allowed domain’s account once and matching by sub after', async () => {
    op.accounts.set('alice', { email: 'alice@corp.test', email_verified: true, name: 'Alice' });
    const { client, authorize, landed } = await signIn('alice');
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${h.config.publicUrl}/auth/oidc/callback`);
    expect(landed.res.status).toBe(303);
    expect((await client.get('/profile')).res.status).toBe(200);
    const id = await userIdOf('alice@corp.test');
    expect(id).toBeTruthy();
    // The provider changes her address: the sub still finds the same account, and no second one is made.
    op.accounts.set('alice', { email: 'alice.new@corp.test', email_verified: true });
    const again = await signIn('alice');
    expect(again.landed.res.status).toBe(303);
    expect(await userIdOf('alice.new@corp.test')).toBeUndefined();
    const rows = await h.query<{ user_id: string }>('SELECT user_id FROM oidc_identities WHERE subject = ?', ['alice']);
    expect(rows.map((r) => r.user_id)).toEqual([id]);
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    op.accounts.set('mallory', { email: 'mallory@corp.test', email_verified: true });
    const { client, landed } = await signIn('mallory', undefined, (u) => u.searchParams.set('state', 'forged-state'));
    expect(landed.res.status).toBe(400);
    expect(landed.html).toContain('could not be verified');
    expect(client.cookies.has('ab_session')).toBe(false);
    expect(await userIdOf('mallory@corp.test')).toBeUndefined();
  });

  it('refuses a callback without the sealed state cookie (another browser)', async () => {
    op.accounts.set('mallory', { email: 'mallory@corp.test', email_verified: true });
    const { client, landed } = await signIn('mallory', undefined, () => undefined);
    expect(landed.res.status).toBe(303);
    const replay = new DashClient(h, 'http');
    const again = await replay.get(new URL(landed.res.url || `${h.config.publicUrl}/`).pathname);
    expect(again.res.status).not.toBe(200);
    const stolen = await client.get('/auth/oidc/callback?code=abc&state=def');
    expect(stolen.res.status).toBe(400);
  });

  it('refuses an address whose domain is not allowed and that no group mapping admits', async () => {
    op.accounts.set('eve', { email: 'eve@elsewhere.test', email_verified: true });
    const { landed } = await signIn('eve');
    expect(landed.res.status).toBe(403);
    expect(landed.html).toContain('No access');
    expect(await userIdOf('eve@elsewhere.test')).toBeUndefined();
  });

  it('links an existing verified account only when the provider says the address is verified', async () => {
    op.accounts.set('owner-unverified', { email: 'owner@acme.test', email_verified: false });
    const refused = await signIn('owner-unverified');
    expect(refused.landed.res.status).toBe(409);
    expect(refused.landed.html).toContain('Link your account first');
    op.accounts.set('owner-sub', { email: 'owner@acme.test', email_verified: true });
    const linked = await signIn('owner-sub');
    expect(linked.landed.res.status).toBe(303);
    expect((await h.query<{ user_id: string }>('SELECT user_id FROM oidc_identities WHERE subject = ?', ['owner-sub']))[0]?.user_id).toBe(seed.owner.id);
  });

  it('never links to an account whose address is not verified here', async () => {
    const unverified = await h.services.accounts.createUser('carol@elsewhere.test', 'Carol', { verified: false });
    op.accounts.set('carol', { email: 'carol@elsewhere.test', email_verified: true });
    const { landed } = await signIn('carol');
    // No verified holder and a domain nobody allowed: refused, and Carol's account is untouched.
    expect(landed.res.status).toBe(403);
    expect(await h.query('SELECT 1 FROM oidc_identities WHERE user_id = ?', [unverified.id])).toEqual([]);
  });

  it('links from the profile while signed in (Post/Redirect/Get)', async () => {
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.member.id);
    await client.get('/profile');
    op.nextLogin = 'max-sub';
    op.accounts.set('max-sub', { email: 'max@other.test', email_verified: false });
    const pressed = await client.post('/profile/oidc/link', {});
    expect(pressed.res.status).toBe(303);
    const back = new URL(await throughProvider(pressed.res.headers.get('location')!, h.config.publicUrl));
    const landed = await client.get(back.pathname + back.search);
    expect(landed.res.status).toBe(303);
    expect(landed.res.headers.get('location')).toMatch(/^\/profile\?flash=/);
    const shown = await client.get(landed.res.headers.get('location')!);
    expect(shown.html).toContain('linked to Corp SSO');
    const fresh = await signIn('max-sub');
    expect(fresh.landed.res.status).toBe(303);
    const session = fresh.client.cookies.get('ab_session')!;
    expect((await h.services.accountAuth.sessions.resolve(session))?.userId).toBe(seed.member.id);
  });

  it('links from the Profile page’s link (a GET with a session-bound token) and refuses a wrong token', async () => {
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.stranger.id);
    const profile = await client.get('/profile');
    const href = /href="(\/profile\/oidc\/link\?token=[^"]+)"/.exec(profile.html)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toBeTruthy();
    expect((await client.get('/profile/oidc/link?token=made-up')).res.status).toBe(403);
    const stranger = new DashClient(h, 'http');
    await stranger.signInWithLink(seed.owner.id);
    expect((await stranger.get(href!)).res.status).toBe(403);
    op.nextLogin = 'ada-sub';
    op.accounts.set('ada-sub', { email: 'ada@other.test', email_verified: false });
    const pressed = await client.get(href!);
    expect(pressed.res.status).toBe(303);
    const back = new URL(await throughProvider(pressed.res.headers.get('location')!, h.config.publicUrl));
    const landed = await client.get(back.pathname + back.search);
    expect(landed.res.headers.get('location')).toMatch(/^\/profile\?flash=/);
    expect(await h.query('SELECT user_id FROM oidc_identities WHERE subject = ?', ['ada-sub'])).toEqual([{ user_id: seed.stranger.id }]);
    expect((await client.get('/profile')).html).toContain('Your account is linked to Corp SSO');
  });

  it('back-channel logout from the provider ends the sessions it names', async () => {
    op.accounts.set('dora', { email: 'dora@corp.test', email_verified: true });
    const { client } = await signIn('dora');
    expect((await client.get('/profile')).res.status).toBe(200);
    const secret = client.cookies.get('ab_session')!;
    const link = await h.services.sso.signOn.rows.sessionLink(digest(secret));
    expect(link?.sid).toBeTruthy();
    const rp = await op.provider().Client.find(CLIENT_ID);
    await (rp as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> }).backchannelLogout('dora', link!.sid!);
    expect((await client.get('/profile')).res.status).toBe(303);
    expect(await h.query('SELECT 1 FROM sessions WHERE id_hash = ?', [digest(secret)])).toEqual([]);
  });

  it('refuses a logout token that is not the provider’s', async () => {
    const res = await fetch(`${h.config.publicUrl}/auth/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJkb3JhIn0.' }).toString(),
    });
    expect(res.status).toBe(400);
    const missing = await fetch(`${h.config.publicUrl}/auth/oidc/backchannel-logout`, { method: 'POST' });
    expect(missing.status).toBe(400);
  });

  it('signing out of an OpenID session goes on to the provider’s end-session endpoint', async () => {
    op.accounts.set('erin', { email: 'erin@corp.test', email_verified: true });
    const { client } = await signIn('erin');
    await client.get('/channels');
    const out = await client.post('/sign-out', {});
    expect(out.res.status).toBe(303);
    const to = new URL(out.res.headers.get('location')!);
    expect(to.origin).toBe(op.issuer);
    expect(to.searchParams.get('post_logout_redirect_uri')).toBe(`${h.config.publicUrl}/sign-in`);
  });
});
