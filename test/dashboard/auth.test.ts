import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup(opts: Parameters<typeof startDashboard>[0] = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  h = await startDashboard({ serve: false, ...opts, overrides: { clock, ...opts.overrides } });
  const seed = await seedWorkspace(h.services);
  return { h, clock, seed };
}

describe('pages and headers', () => {
  it('sends the strict CSP, nosniff and same-origin referrer on pages, redirects and 404s; the API keeps JSON', async () => {
    const { h } = await setup();
    for (const path of ['/sign-in', '/channels', '/no-such-page']) {
      const res = await h.app.request(path, { headers: { accept: 'text/html' } });
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
    const missing = await h.app.request('/no-such-page', { headers: { accept: 'text/html' } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Page not found');
    const api = await h.app.request('/api/nope');
    expect(api.headers.get('content-type')).toBe('application/problem+json');
    expect(api.headers.get('content-security-policy')).toBeNull();
  });

  it('serves htmx 2 and its own assets at content-hashed paths cached for a year, and no inline script', async () => {
    const { h } = await setup();
    const html = await (await h.app.request('/sign-in')).text();
    const scripts = [...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    // theme, htmx, and our scripts bundled in one (assets.ts).
    expect(scripts.length).toBe(3);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\/assets\/[a-z]+\.[0-9a-f]{12}\.js"/);
      expect(body).toBe('');
    }
    const htmxPath = /src="(\/assets\/htmx\.[0-9a-f]{12}\.js)"/.exec(html)![1]!;
    const res = await h.app.request(htmxPath);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toContain('2.0.');
    expect((await h.app.request('/assets/htmx.000000000000.js')).status).toBe(404);
  });
});

describe('sign-in links', () => {
  it('a GET shows a button and uses nothing; the POST signs in once; a second use fails', async () => {
    const { h, seed } = await setup();
    const link = new URL(await h.link(seed.owner.id));
    const c = new DashClient(h);
    const page = await c.get(link.pathname + link.search);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Sign in as owner@acme.test');
    expect(c.cookies.size).toBe(0);
    // A mail scanner fetching the link twice changes nothing.
    await c.get(link.pathname + link.search);
    const signIn = await c.post('/auth/link', { t: link.searchParams.get('t')! });
    expect(signIn.res.status).toBe(303);
    const cookie = signIn.res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^ab_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const signedIn = await c.get('/channels');
    expect(signedIn.res.status).toBe(200);
    expect(signedIn.html).toContain('<h1>Channels</h1>');

    const again = await new DashClient(h).post('/auth/link', { t: link.searchParams.get('t')! });
    expect(again.res.status).toBe(410);
    expect(again.html).toContain('no longer works');
  });

  it('expires after 15 minutes and is stored only as a hash', async () => {
    const { h, clock, seed } = await setup();
    const link = new URL(await h.link(seed.owner.id));
    const secret = link.searchParams.get('t')!;
    const stored = (await h.query<{ token_hash: string }>('SELECT token_hash FROM sign_in_links')).map((r) => r.token_hash);
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(secret);
    clock.advance(15 * MIN);
    const res = await new DashClient(h).post('/auth/link', { t: secret });
    expect(res.res.status).toBe(410);
  });

  it('uses the __Host- prefix and Secure when PUBLIC_URL is https', async () => {
    const { h, seed } = await setup({ env: { PUBLIC_URL: 'https://alerts.example.com' } });
    const link = new URL(await h.link(seed.owner.id));
    const res = await new DashClient(h).post('/auth/link', { t: link.searchParams.get('t')! });
    expect(res.res.headers.get('set-cookie')).toMatch(/^__Host-ab_session=[^;]+;.*Secure/);
  });

  it('admin login-link prints a working one-time URL and its expiry', async () => {
    const { h } = await setup();
    const out = await runAdmin(['login-link', '--email', 'owner@acme.test'], { ...cliEnv(h), PUBLIC_URL: h.config.publicUrl });
    expect(out.code).toBe(0);
    const printed = JSON.parse(out.stdout) as { url: string; expiresAt: string };
    expect(printed.url).toMatch(/^http:\/\/alertbridge\.test\/auth\/link\?t=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(printed.expiresAt) - Date.now()).toBeGreaterThan(14 * MIN);
    const t = new URL(printed.url).searchParams.get('t')!;
    expect((await new DashClient(h).post('/auth/link', { t })).res.status).toBe(303);
    const unknown = await runAdmin(['login-link', '--email', 'nobody@acme.test'], cliEnv(h));
    expect(unknown.code).toBe(1);
  });
});

describe('sessions', () => {
  it('ends after 7 idle days, and 30 days after sign-in however active', async () => {
    const { h, clock, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    clock.advance(7 * DAY - MIN);
    expect((await c.get('/channels')).res.status).toBe(200);
    clock.advance(7 * DAY - MIN);
    expect((await c.get('/channels')).res.status).toBe(200);
    clock.advance(7 * DAY);
    const idle = await c.get('/channels');
    expect(idle.res.status).toBe(303);
    expect(idle.res.headers.get('location')).toBe('/sign-in?next=%2Fchannels');

    const active = new DashClient(h);
    await active.signInWithLink(seed.owner.id);
    for (let day = 1; day < 30; day++) {
      clock.advance(DAY);
      expect((await active.get('/tokens')).res.status).toBe(200);
    }
    clock.advance(DAY);
    expect((await active.get('/tokens')).res.status).toBe(303);
  });

  it('sign-out ends the session on the server; sign out everywhere ends every session of the user', async () => {
    const { h, seed } = await setup();
    const a = new DashClient(h);
    await a.signInWithLink(seed.owner.id);
    const stolen = new Map(a.cookies);
    expect((await a.post('/sign-out')).res.status).toBe(303);
    const replay = new DashClient(h);
    replay.cookies = stolen;
    expect((await replay.get('/channels')).res.status).toBe(303);

    const laptop = new DashClient(h);
    const phone = new DashClient(h);
    await laptop.signInWithLink(seed.owner.id);
    await phone.signInWithLink(seed.owner.id);
    expect((await phone.post('/sign-out/everywhere')).res.status).toBe(303);
    expect((await laptop.get('/channels')).res.status).toBe(303);
  });

  it('gives a new session id at every sign-in and ends the one the browser had', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    const first = c.cookies.get('ab_session');
    await c.signInWithLink(seed.owner.id);
    expect(c.cookies.get('ab_session')).not.toBe(first);
    const old = new DashClient(h);
    old.cookies.set('ab_session', first!);
    expect((await old.get('/channels')).res.status).toBe(303);
  });
});

describe('CSRF', () => {
  it('refuses a state change with a wrong or missing Origin, or without the session token', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    const create = { name: 'Billing' };
    for (const attempt of [
      { origin: 'https://evil.example' },
      { origin: null },
      { origin: 'null' },
      { csrf: null },
      { csrf: 'x'.repeat(43) },
    ]) {
      const res = await c.post('/channels', create, attempt);
      expect(res.res.status).toBe(403);
      expect(res.html).toContain('Request refused');
    }
    expect(await h.query("SELECT count(*) AS count FROM channels WHERE name = 'Billing'")).toEqual([{ count: 0 }]);
    // A browser that sends no Origin but says same-origin passes, with the token.
    const ok = await c.post('/channels', create, { origin: null, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(ok.res.status).toBe(303);
    // Cross-site fetch with the token in a header but from another site: refused.
    const cross = await c.post('/channels', { name: 'Other' }, { origin: null, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(cross.res.status).toBe(403);
  });

  it('checks JSON bodies too: the token must come in X-CSRF-Token', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    const send = (headers: Record<string, string>) =>
      h.app.request('/channels', {
        method: 'POST',
        headers: { cookie: `ab_session=${c.cookies.get('ab_session')}`, origin: h.origin, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'Json' }),
      });
    expect((await send({})).status).toBe(403);
    expect((await send({ 'x-csrf-token': 'wrong' })).status).toBe(403);
    // With the token the request passes the CSRF walls (the form reader then finds no fields: a 400 field error, not a 403).
    expect((await send({ 'x-csrf-token': c.csrf! })).status).toBe(400);
  });

  it('refuses a sign-in form posted from another site (login CSRF)', async () => {
    const { h } = await setup();
    const res = await new DashClient(h).post('/sign-in', { email: 'owner@acme.test', password: 'x' }, { origin: 'https://evil.example' });
    expect(res.res.status).toBe(403);
  });
});

describe('passwords and the sign-in rate limit', () => {
  it('sets a password in the profile and signs in with it; a wrong one is a 401 with the same message as an unknown user', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    await c.get('/profile');
    const set = await c.post('/profile/password', { new_password: 'correct horse battery', repeat_password: 'correct horse battery' });
    expect(set.res.status).toBe(303);
    const short = await c.post('/profile/password', { new_password: 'short', repeat_password: 'short' });
    expect(short.res.status).toBe(400);
    expect(short.html).toContain('Use 10 to 256 characters');

    const fresh = new DashClient(h);
    const wrong = await fresh.post('/sign-in', { email: 'owner@acme.test', password: 'wrong password!' });
    const unknown = await fresh.post('/sign-in', { email: 'ghost@acme.test', password: 'wrong password!' });
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.status).toBe(401);
    const msg = 'That e-mail and password do not match an account with a password.';
    expect(wrong.html).toContain(msg);
    expect(unknown.html).toContain(msg);
    const ok = await fresh.post('/sign-in', { email: 'OWNER@acme.test', password: 'correct horse battery', next: '/tokens' });
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get('location')).toBe('/tokens');
    // An open redirect through `next` is refused.
    const evil = await new DashClient(h).post('/sign-in', { email: 'owner@acme.test', password: 'correct horse battery', next: '//evil.example' });
    expect(evil.res.headers.get('location')).toBe('/');
  });

  it('hashes with scrypt at OWASP parameters (N=2^17, r=8, p=1) by default', async () => {
    // No scrypt override: the parameters the service uses in production.
    const { h, seed } = await setup({ overrides: { scrypt: undefined } });
    const p = h.services.accountAuth.passwords;
    await p.set(seed.member.id, 'a long enough password');
    const stored = (await h.query<{ hash: string }>('SELECT hash FROM user_passwords WHERE user_id = ?', [seed.member.id]))[0]!.hash;
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await p.verify(seed.member.id, 'a long enough password')).toBe(true);
    expect(await p.verify(seed.member.id, 'a long enough passworD')).toBe(false);
  });

  it('limits attempts per e-mail (5 a minute) with the API 429 problem and Retry-After', async () => {
    const { h, clock } = await setup();
    const c = new DashClient(h);
    for (let i = 0; i < 5; i++) expect((await c.post('/sign-in', { email: 'owner@acme.test', password: `guess number ${i}` })).res.status).toBe(401);
    const html = await c.post('/sign-in', { email: 'owner@acme.test', password: 'guess 6' });
    expect(html.res.status).toBe(429);
    expect(Number(html.res.headers.get('retry-after'))).toBeGreaterThan(0);
    const api = await h.app.request('/sign-in', {
      method: 'POST',
      headers: { origin: h.origin, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'email=owner%40acme.test&password=guess+7',
    });
    expect(api.status).toBe(429);
    expect(api.headers.get('content-type')).toBe('application/problem+json');
    expect(((await api.json()) as { type: string }).type).toBe('http://alertbridge.test/problems/rate-limited');
    // Another address is not blocked by this one's guesses.
    expect((await c.post('/sign-in', { email: 'member@acme.test', password: 'guess' })).res.status).toBe(401);
    clock.advance(MIN);
    expect((await c.post('/sign-in', { email: 'owner@acme.test', password: 'guess again' })).res.status).toBe(401);
  });

  it('limits attempts per client address (30 a minute) across e-mails, believing X-Forwarded-For only with TRUST_PROXY', async () => {
    const { h } = await setup({ env: { TRUST_PROXY: 'true' } });
    const c = new DashClient(h);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 30; i++) expect((await c.post('/sign-in', { email: `u${i}@acme.test`, password: 'x' }, from('203.0.113.7'))).res.status).toBe(401);
    expect((await c.post('/sign-in', { email: 'u99@acme.test', password: 'x' }, from('203.0.113.7'))).res.status).toBe(429);
    expect((await c.post('/sign-in', { email: 'u99@acme.test', password: 'x' }, from('203.0.113.8'))).res.status).toBe(401);
  });
});

describe('logs', () => {
  it('never carries a session id, a sign-in link secret or a created API token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const { h, seed } = await setup({ overrides: { logger: pino({ level: 'trace' }, sink) } });
    const c = new DashClient(h);
    const link = new URL(await h.link(seed.owner.id));
    await c.get(link.pathname + link.search);
    await c.post('/auth/link', { t: link.searchParams.get('t')! });
    await c.get('/tokens');
    const created = await c.submit('/tokens', { name: 'ci' });
    const token = /value="(ab_[0-9a-f]{48})"/.exec(created.html)![1]!;
    await c.post('/channels', { name: 'Logged' });
    await c.post('/sign-out');
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(3);
    for (const secret of [link.searchParams.get('t')!, token, ...c.cookies.values()]) expect(all).not.toContain(secret);
    expect(all).not.toContain(link.searchParams.get('t')!.slice(0, 20));
  });
});

describe('hostile input', () => {
  it('refuses a form body over 64 KiB with 413 before reading it, and odd bodies with field errors, never a 500', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    const big = await c.post('/channels', { name: 'x'.repeat(70 * 1024) });
    expect(big.res.status).toBe(413);
    const odd = [
      { 'content-type': 'multipart/form-data; boundary=zzz', body: '--zzz--' },
      { 'content-type': 'application/x-www-form-urlencoded', body: '%%%&&&=' },
      { 'content-type': 'text/plain', body: '\u0000\u0001' },
    ];
    for (const o of odd) {
      const res = await h.app.request('/channels', {
        method: 'POST',
        headers: { cookie: `ab_session=${c.cookies.get('ab_session')}`, origin: h.origin, 'x-csrf-token': c.csrf!, accept: 'text/html', 'content-type': o['content-type'] },
        body: o.body,
      });
      expect(res.status, o['content-type']).toBe(400);
    }
    for (const path of ['/auth/link', '/sign-in', '/sign-in/link', '/profile/email', '/profile/email/confirm', '/unsubscribe?u=%00&c=%ff&s=', '/channels/%00/rotate', '/tokens/..%2f/revoke']) {
      const res = await c.post(path, { t: '\u0000'.repeat(10), email: '\ud800', password: 'x'.repeat(10_000) });
      expect(res.res.status, path).toBeLessThan(500);
    }
  });
});
