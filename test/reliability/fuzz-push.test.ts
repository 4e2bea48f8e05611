import { createECDH, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PUSH_SUBSCRIPTIONS_PER_USER, refusedEndpointReason } from '../../src/domain/push.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Hostile input to the Web Push endpoints (the dashboard's /push/*, /push-sw.js)
 * over real HTTP, signed in as a member: no 5xx ever; every 4xx a problem
 * document or the dashboard's HTML error page; and whatever was accepted is a
 * subscription the SSRF guard allows (https, no private or loopback address),
 * never more than the per-user limit. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let client: DashClient;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const statuses = new Map<number, number>();

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
  client = new DashClient(h);
  await client.signInWithLink(seed.member.id);
  await client.get('/profile');
});
afterAll(() => h?.close());

const p256dh = () => {
  const e = createECDH('prime256v1');
  e.generateKeys();
  return e.getPublicKey().toString('base64url');
};
const GOOD = { p256dh: p256dh(), auth: randomBytes(16).toString('base64url') };

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '../', '<script>', "'; DROP TABLE push_subscriptions;--", '__proto__', 'constructor');
const host = fc.constantFrom(
  'push.example.com', '127.0.0.1', '[::1]', '10.0.0.8', '169.254.169.254', '[::ffff:127.0.0.1]', '0.0.0.0', 'localhost', 'LOCALHOST',
  '2130706433', '0x7f.1', 'push', 'fcm.googleapis.com:8443', 'a'.repeat(300) + '.com', 'user:pw@push.example.com', 'xn--80ak6aa92e.com',
);
const endpoint = fc.oneof(
  fc.tuple(fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'javascript:', '//', ''), host, fc.string({ maxLength: 40 }), fc.option(nasty)).map(
    ([scheme, hst, path, n]) => `${scheme}${hst}/${encodeURIComponent(path)}${n ?? ''}`,
  ),
  fc.string({ maxLength: 1200 }),
  fc.constant(`https://push.example.com/${'x'.repeat(1100)}`),
  fc.anything(),
);
const b64 = fc.oneof(fc.constant(GOOD.p256dh), fc.constant(GOOD.auth), fc.base64String({ maxLength: 120 }), fc.string({ maxLength: 120 }), fc.anything());
const subscription = fc.oneof(
  fc.record({ endpoint, keys: fc.record({ p256dh: b64, auth: b64 }) }, { requiredKeys: [] }),
  fc.record({ endpoint, expirationTime: fc.anything(), keys: fc.constant(GOOD) }),
  fc.dictionary(fc.oneof(fc.string(), nasty), fc.anything()),
  fc.anything(),
);
const body = fc.oneof(
  subscription.map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 300 }),
  fc.constant('{"endpoint":'),
  fc.constant(JSON.stringify({ pad: 'x'.repeat(5000) })),
);
const anyProbe = fc.record({
  path: fc.constantFrom('/push/subscriptions', '/push/unsubscribe', '/push/devices/psub_00000000000000000000000000/delete', '/push/devices/%00/delete', '/push/devices/../delete', '/push-sw.js?x=1'),
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
  type: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'text/plain', ''),
  csrf: fc.constantFrom('good', 'good', 'good', 'none', 'wrong'),
  body,
});
// A browser's own well-formed subscribe, now and then: acceptance and the per-user limit are reached too.
const validSubscribe = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/).map((t) => ({
  path: '/push/subscriptions',
  method: 'POST',
  type: 'application/json',
  csrf: 'good',
  body: JSON.stringify({ endpoint: `https://fcm.googleapis.com/fcm/send/${t}`, expirationTime: null, keys: GOOD }),
}));
const probe = fc.oneof({ arbitrary: anyProbe, weight: 9 }, { arbitrary: validSubscribe, weight: 1 });

async function send(p: { path: string; method: string; type: string; csrf: string; body: string }) {
  const headers: Record<string, string> = { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: h.origin, accept: 'application/json' };
  if (p.type) headers['content-type'] = p.type;
  if (p.csrf !== 'none') headers['x-csrf-token'] = p.csrf === 'good' ? client.csrf! : 'x'.repeat(43);
  const res = await fetch(`${h.config.publicUrl}${p.path}`, { method: p.method, headers, body: p.method === 'GET' ? undefined : p.body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('Web Push endpoints under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, 4xx as problem documents or error pages, nothing unsafe stored`, { timeout: Math.max(60_000, RUNS * 40) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${p.method} ${p.path} → ${a.status}: ${a.text.slice(0, 200)}`);
        if (a.status >= 400 && !a.type.startsWith('application/problem+json') && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const stored = await h.query<{ endpoint: string; userId: string }>('SELECT endpoint, user_id AS "userId" FROM push_subscriptions');
    expect(stored.length).toBeLessThanOrEqual(MAX_PUSH_SUBSCRIPTIONS_PER_USER);
    for (const s of stored) {
      expect(s.userId).toBe(seed.member.id);
      expect(refusedEndpointReason(s.endpoint, false)).toBeNull();
    }
  });

  it('the generated requests reach acceptance, validation, CSRF refusal and the size limit', () => {
    for (const status of [201, 400, 403, 413, 415]) expect(statuses.get(status) ?? 0, `status ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
  });
});
