import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

/**
 * Hostile input to the account routes issue 22 changed or added, over real HTTP with mail on:
 * asking for a sign-in link, changing one's address, the address confirmation link (page and
 * button) and the sign-in link's own page and button. No 5xx ever; every 4xx a problem document or
 * the dashboard's HTML error page; nothing queued for an address that is not one, and no address
 * changed without its confirmation. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let sink: SmtpSink;
let client: DashClient;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
const statuses = new Map<number, number>();

beforeAll(async () => {
  sink = await SmtpSink.start();
  h = await startDashboard({ overrides: { clock }, mailer: new SmtpMailer(sink.url, 'Alertbridge <ab@test>') });
  seed = await seedWorkspace(h.services);
  client = new DashClient(h);
  await client.signInWithLink(seed.member.id);
  await client.get('/profile');
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '%ff', '../', '<script>', "'; DROP TABLE users;--", '__proto__', 'constructor', '\r\nBcc: x@evil.test');
const email = fc.oneof(
  fc.constantFrom('owner@acme.test', 'OWNER@ACME.TEST', 'member@acme.test', 'ghost@acme.test', 'stranger@other.test', 'max+tag@new.test'),
  fc.tuple(fc.string({ maxLength: 20 }), fc.option(nasty), fc.constantFrom('@acme.test', '@', '@@x.y', '')).map(([a, n, d]) => `${a}${n ?? ''}${d}`),
  fc.constant(`${'a'.repeat(300)}@acme.test`),
  fc.string({ maxLength: 200 }),
);
const secret = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), fc.string({ maxLength: 100 }), nasty, fc.constant('x'.repeat(5000)));
const clockTime = fc.oneof(fc.constantFrom('22:00', '07:00', '24:00', '7:5', '', '23:59'), fc.string({ maxLength: 12 }), nasty);
const quiet = {
  start: clockTime,
  end: clockTime,
  timeZone: fc.oneof(fc.constantFrom('Europe/Berlin', 'UTC', 'Mars/Olympus', '', 'x'.repeat(200)), fc.string({ maxLength: 40 }), nasty),
  minLevel: fc.oneof(fc.constantFrom('info', 'warning', 'error', 'ERROR', 'success', ''), nasty),
};
const field = fc.record(
  { email, t: secret, next: fc.oneof(fc.constant('/'), fc.string({ maxLength: 40 })), flash: secret, privacy: fc.constantFrom('public', 'private', '', 'x'), ...quiet },
  { requiredKeys: [] },
);
const probe = fc.record({
  route: fc.constantFrom(
    { method: 'POST', path: '/sign-in/link' },
    { method: 'POST', path: '/profile/email' },
    { method: 'POST', path: '/profile/email/confirm' },
    { method: 'GET', path: '/profile/email/confirm' },
    { method: 'POST', path: '/auth/link' },
    { method: 'GET', path: '/auth/link' },
    // Issue 25: the banner's dismissal, a flash named by a hostile id, a channel's privacy (a member: refused).
    { method: 'POST', path: '/profile/email-banner/dismiss' },
    { method: 'GET', path: '/tokens' },
    { method: 'GET', path: '/members' },
    { method: 'POST', path: '/channels/ch_unknown/privacy' },
    // Issue 26: quiet hours on Profile.
    { method: 'POST', path: '/profile/quiet-hours' },
    { method: 'POST', path: '/profile/quiet-hours/clear' },
  ),
  type: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'text/plain', 'application/json', ''),
  csrf: fc.constantFrom('good', 'good', 'good', 'none', 'wrong'),
  fields: field,
  extra: fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), nasty), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
  raw: fc.option(fc.oneof(fc.string({ maxLength: 200 }), fc.constant('%%%&&&='), fc.constant('email=' + 'x'.repeat(70 * 1024))), { freq: 5 }),
});

type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

async function send(p: Probe) {
  // A minute between probes: the sign-in limits (per address and per e-mail) stay out of the way of most.
  clock.advance(61_000);
  const form = new URLSearchParams();
  if (p.csrf !== 'none') form.set('_csrf', p.csrf === 'good' ? client.csrf! : 'x'.repeat(86));
  for (const [k, v] of Object.entries({ ...p.extra, ...p.fields })) form.set(k, String(v));
  const headers: Record<string, string> = { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: h.origin, accept: 'text/html' };
  if (p.type) headers['content-type'] = p.type;
  const get = p.route.method === 'GET';
  const url = `${h.config.publicUrl}${p.route.path}${get ? `?${form.toString()}` : ''}`;
  const res = await fetch(url, { method: p.route.method, headers, body: get ? undefined : (p.raw ?? form.toString()), redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('account routes under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, 4xx as error pages, no address changed without its link`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${p.route.method} ${p.route.path} → ${a.status}: ${a.text.slice(0, 200)}`);
        if (a.status >= 400 && !a.type.startsWith('application/problem+json') && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    await h.accountMailer!.whenIdle();
    // Nobody's address moved: a confirmation takes its e-mailed link, which no probe could know.
    expect(await h.services.accounts.findUser(seed.member.id)).toMatchObject({ email: 'member@acme.test', emailVerified: true });
    expect(await h.services.accounts.findUser(seed.owner.id)).toMatchObject({ email: 'owner@acme.test', emailVerified: true });
    // Only real addresses were queued, each once per request that named it, none holding a link in clear.
    const queued = await h.query<{ to: string; sealed: string | null }>('SELECT to_address AS "to", sealed_link AS sealed FROM account_emails');
    for (const q of queued) {
      expect(q.to).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
      expect(q.sealed ?? '').not.toMatch(/auth\/link|profile\/email/);
    }
    for (const m of sink.messages) expect(m.rcpt).toHaveLength(1);
  });

  it('the generated requests reach success, refused bodies, expired links and CSRF refusal', () => {
    const seen = JSON.stringify([...statuses]);
    for (const status of [200, 403, 410]) expect(statuses.get(status) ?? 0, `status ${status} in ${seen}`).toBeGreaterThan(0);
    expect((statuses.get(400) ?? 0) + (statuses.get(413) ?? 0), `400 or 413 in ${seen}`).toBeGreaterThan(0);
  });
});
