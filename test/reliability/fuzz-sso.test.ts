import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';

/**
 * Hostile input at single sign-on's routes over real HTTP: generated query strings and state cookies
 * at the callback, generated bodies at the back-channel logout. Never a 5xx, never a session.
 * FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let op: TestProvider;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  op = await startTestProvider();
  h = await startDashboard({ env: { OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_ALLOWED_DOMAINS: 'corp.test' } });
  await op.register(h.config.publicUrl);
  seed = await seedWorkspace(h.services);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await op?.close();
});

const piece = fc.constantFrom('code', 'state', 'error', 'iss', 'session_state', '=', '&', '%', '%00', '%ZZ', '\u0000', '😀', 'a'.repeat(3000), 'eyJhbGciOiJub25lIn0', '.', '', '[]', 'x');
const hostile = fc.array(piece, { maxLength: 10 }).map((p) => p.join(''));

describe('single sign-on routes under hostile input (property-based)', () => {
  it(`callback: ${RUNS} generated queries and state cookies, no 5xx, no session`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    // A genuine state cookie, so hostile queries also reach the code exchange.
    const real = new DashClient(h, 'http');
    await real.post('/auth/oidc/start', { next: '/' }, { csrf: null });
    const sealed = real.cookies.get('ab_oidc')!;
    await fc.assert(
      fc.asyncProperty(hostile, hostile, fc.boolean(), async (query, cookie, genuine) => {
        const client = new DashClient(h, 'http');
        client.cookies.set('ab_oidc', genuine ? sealed : encodeURIComponent(cookie));
        const res = await fetch(`${h.config.publicUrl}/auth/oidc/callback?${query}`, { redirect: 'manual', headers: { cookie: `ab_oidc=${client.cookies.get('ab_oidc')}` } });
        expect(res.status).toBeLessThan(500);
        expect(res.headers.getSetCookie().some((c) => c.startsWith('ab_session='))).toBe(false);
        await res.arrayBuffer();
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`back-channel logout: ${RUNS} generated bodies, always a 400`, { timeout: Math.max(60_000, RUNS * 40) }, async () => {
    await fc.assert(
      fc.asyncProperty(hostile, fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', ''), async (body, type) => {
        const res = await fetch(`${h.config.publicUrl}/auth/oidc/backchannel-logout`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: `logout_token=${body}` });
        expect(res.status).toBe(400);
        await res.arrayBuffer();
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`profile link: ${RUNS} generated tokens, always a 403, never a redirect to the provider`, { timeout: Math.max(60_000, RUNS * 40) }, async () => {
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.member.id);
    await fc.assert(
      fc.asyncProperty(hostile, async (token) => {
        const { res } = await client.get(`/profile/oidc/link?token=${token}`);
        expect(res.status).toBe(403);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`owners' group mappings page: ${RUNS} generated forms, a 303 or a 4xx, never a 5xx or a bad mapping`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    const owner = new DashClient(h, 'http');
    await owner.signInWithLink(seed.owner.id);
    await owner.get('/members/sso-groups');
    const key = fc.oneof(fc.constantFrom('group', 'role', `channel_${seed.secret.id}`, `channel_${seed.general.id}`, `channel_${seed.otherChannel.id}`), hostile.map((k) => `channel_${k}`));
    const form = fc.dictionary(key, fc.oneof(hostile, fc.constantFrom('owner', 'admin', 'member', 'on', ' ops ')), { maxKeys: 6 });
    await fc.assert(
      fc.asyncProperty(form, fc.boolean(), async (fields, unmap) => {
        const { res } = await owner.post(unmap ? '/members/sso-groups/unmap' : '/members/sso-groups', fields);
        expect(res.status === 303 || (res.status >= 400 && res.status < 500), `status ${res.status}`).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    for (const m of await h.services.sso.signOn.mappingsOf(seed.ws.id)) {
      expect(m.group.length).toBeGreaterThan(0);
      expect(m.group.length).toBeLessThanOrEqual(200);
      expect(m.group).toBe(m.group.trim());
      expect(m.channels.map((ch) => ch.id)).toEqual(m.channels.length ? [seed.secret.id] : []);
    }
  });
});
