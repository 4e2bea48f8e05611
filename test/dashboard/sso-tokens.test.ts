import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

// ID tokens a real provider would never issue: a hand-made provider on loopback answers the token
// request with a foreign signature, an expired token or another nonce, and each is refused.
type Mode = 'ok' | 'foreign' | 'expired' | 'nonce';
let mode: Mode = 'ok';
let issuer: string;
let server: http.Server;
let h: DashHarness;
let nonce = '';

beforeAll(async () => {
  const own = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(own.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json(jwks);
    if (url.pathname === '/authorize') {
      nonce = url.searchParams.get('nonce')!;
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'the-code');
      back.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(303, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token') {
      req.resume();
      const now = Math.floor(Date.now() / 1000);
      const key: CryptoKey = mode === 'foreign' ? foreign.privateKey : own.privateKey;
      void new SignJWT({ email: 'tess@corp.test', email_verified: true, nonce: mode === 'nonce' ? 'another-nonce' : nonce })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience('alertbridge')
        .setSubject('tess')
        .setIssuedAt(mode === 'expired' ? now - 7200 : now)
        .setExpirationTime(mode === 'expired' ? now - 3600 : now + 300)
        .sign(key)
        .then((idToken) => json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startDashboard({ env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'alertbridge', OIDC_CLIENT_SECRET: 's3cret-s3cret', OIDC_ALLOWED_DOMAINS: 'corp.test' } });
}, 60_000);

afterAll(async () => {
  await h?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

async function signInWith(m: Mode) {
  mode = m;
  const client = new DashClient(h, 'http');
  const started = await client.post('/auth/oidc/start', { next: '/' }, { csrf: null });
  const atProvider = await fetch(started.res.headers.get('location')!, { redirect: 'manual' });
  const back = new URL(atProvider.headers.get('location')!);
  return { client, landed: await client.get(back.pathname + back.search) };
}

describe('ID token validation', () => {
  it.each(['foreign', 'expired', 'nonce'] as const)('refuses a %s ID token and signs nobody in', async (m) => {
    const { client, landed } = await signInWith(m);
    expect(landed.res.status).toBe(400);
    expect(landed.html).toContain('could not be verified');
    expect(client.cookies.has('ab_session')).toBe(false);
    expect(await h.query('SELECT 1 FROM users WHERE email = ?', ['tess@corp.test'])).toEqual([]);
  });

  it('accepts the same provider’s well-formed token (the refusals above are the token’s fault)', async () => {
    const { client, landed } = await signInWith('ok');
    expect(landed.res.status).toBe(303);
    expect(client.cookies.has('ab_session')).toBe(true);
  });
});
