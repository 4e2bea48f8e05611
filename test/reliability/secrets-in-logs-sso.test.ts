import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, throughProvider, type TestProvider } from '../helpers/oidc-provider.js';

// No code, state, token or secret of single sign-on in any log line, at trace level, on the success
// and the error paths of the callback and the back-channel logout route (docs/security.md).
const lines: string[] = [];
const secrets = new Map<string, string>();
let op: TestProvider;
let h: DashHarness;

beforeAll(async () => {
  op = await startTestProvider();
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  h = await startDashboard({
    env: { LOG_LEVEL: 'trace', OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_ALLOWED_DOMAINS: 'corp.test' },
    overrides: { logger },
  });
  await op.register(h.config.publicUrl);
  secrets.set('client secret', CLIENT_SECRET);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await op?.close();
});

async function signIn(tamper?: (u: URL) => void) {
  const client = new DashClient(h, 'http');
  const started = await client.post('/auth/oidc/start', { next: '/' }, { csrf: null });
  for (const [name, value] of client.cookies) secrets.set(`state cookie ${name}`, value);
  const back = new URL(await throughProvider(started.res.headers.get('location')!, h.config.publicUrl));
  secrets.set(`code ${secrets.size}`, back.searchParams.get('code')!);
  secrets.set(`state ${secrets.size}`, back.searchParams.get('state')!);
  tamper?.(back);
  const landed = await client.get(back.pathname + back.search);
  for (const [name, value] of client.cookies) secrets.set(`session cookie ${name} ${secrets.size}`, value);
  return { client, landed };
}

describe('single sign-on logs', () => {
  it('holds no code, state, cookie, token or client secret', async () => {
    op.accounts.set('lou', { email: 'lou@corp.test', email_verified: true });
    op.nextLogin = 'lou';
    expect((await signIn()).landed.res.status).toBe(303);
    expect((await signIn((u) => u.searchParams.set('state', 'x'))).landed.res.status).toBe(400);
    // The provider's back-channel logout, with its real token, and a refused one.
    const { client } = await signIn();
    const session = client.cookies.get('ab_session')!;
    const link = await h.services.sso.signOn.rows.sessionLink((await import('../../src/domain/auth/secrets.js')).digest(session));
    const rp = await op.provider().Client.find(CLIENT_ID);
    await (rp as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> }).backchannelLogout('lou', link!.sid!);
    for (const body of op.sent) secrets.set('logout token', new URLSearchParams(body).get('logout_token')!);
    const forged = `${secrets.get('logout token')!.slice(0, -6)}AAAAAA`;
    const refused = await fetch(`${h.config.publicUrl}/auth/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: forged }).toString(),
    });
    expect(refused.status).toBe(400);

    // The owners' group mappings page: its session, CSRF token and the channels' webhook tokens.
    const seed = await seedWorkspace(h.services);
    secrets.set('private channel webhook token', seed.secret.webhookToken);
    const owner = new DashClient(h, 'http');
    await owner.signInWithLink(seed.owner.id);
    await owner.get('/members/sso-groups');
    secrets.set('owner session cookie', owner.cookies.get('ab_session')!);
    secrets.set('owner csrf token', owner.csrf!);
    expect((await owner.post('/members/sso-groups', { group: 'sre', role: 'admin', [`channel_${seed.secret.id}`]: 'on' })).res.status).toBe(303);
    expect((await owner.post('/members/sso-groups', { group: '', role: 'admin', [`channel_${seed.general.id}`]: 'on' })).res.status).toBe(400);
    expect((await owner.post('/members/sso-groups/unmap', { group: 'sre' })).res.status).toBe(303);
    expect(lines.some((l) => l.includes('/members/sso-groups'))).toBe(true);

    expect(lines.some((l) => l.includes('back-channel logout'))).toBe(true);
    expect(lines.some((l) => l.includes('/auth/oidc/callback'))).toBe(true);
    for (const [label, value] of secrets) {
      expect(value.length, label).toBeGreaterThan(8);
      const leaked = lines.find((l) => l.includes(value) || l.includes(value.slice(0, 24)));
      expect(leaked, `${label} leaked`).toBeUndefined();
    }
  });
});
