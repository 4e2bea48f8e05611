import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Hostile input to the feed routes issue 25 added, over real HTTP: the density (POST
 * /feed/density), the test alert (POST /feed/test-alert) and the first-alert panel's reveal
 * (GET /feed?reveal=…). No 5xx ever; every 4xx a problem document or the dashboard's HTML error
 * page; a stored density is always one the feed knows; a test alert lands only in a channel the
 * member can see, and never in the private channel or another workspace. FUZZ_RUNS / FUZZ_SEED as
 * in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let client: DashClient;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const statuses = new Map<number, number>();
/** The chat channel whose thread the probes read (its two messages are the only rows outside the webhook channels). */
let community: { id: string };

beforeAll(async () => {
  h = await startDashboard({ env: { WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000' } });
  seed = await seedWorkspace(h.services);
  client = new DashClient(h);
  await client.signInWithLink(seed.member.id);
  await client.get('/feed');
  // A chat channel for the posts list to reach past its 404.
  community = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Community', icon: '💬' });
  await h.services.discordLinks.connect(community.id, '1600000000000000001');
  // A thread with a reply, for the thread route (in place and as a page) to reach success.
  const thread = { id: '1600000000000000100', name: 'Thread', tags: [], archived: false };
  const mia = { id: 'u1', name: 'Mia', bot: false, role: 'member' as const };
  const msg = (id: string, text: string) => ({ messageId: id, createdAt: Date.now(), editedAt: null, text, author: mia, replyTo: null, attachments: [], thread });
  await h.services.chatIngest.store({ channelId: community.id, discordChannelId: '1600000000000000001' }, [msg(thread.id, 'head'), msg('1600000000000000101', 'reply')]);
});
afterAll(async () => {
  await h?.close();
});

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '%ff', '../', '<script>', "'; DROP TABLE users;--", '__proto__', 'constructor', '\r\nX: y');
const text = fc.oneof(fc.string({ maxLength: 40 }), nasty, fc.constant('x'.repeat(5000)));
const probe = fc.record({
  route: fc.constantFrom({ method: 'POST', path: '/feed/density' }, { method: 'POST', path: '/feed/test-alert' }, { method: 'GET', path: '/feed' }, { method: 'GET', path: '/feed/c/general' }, { method: 'GET', path: '/feed/c/community/posts' },
    { method: 'GET', path: '/feed/c/community/threads/1600000000000000100' }, { method: 'GET', path: '/feed/c/community/threads/%2e%2e%2fposts' }),
  type: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'text/plain', 'application/json', ''),
  csrf: fc.constantFrom('good', 'good', 'good', 'none', 'wrong'),
  htmx: fc.constantFrom(false, false, true),
  fields: fc.record(
    {
      // Well-formed values weigh more, so that enough probes get past validation to reach success.
      density: fc.oneof({ arbitrary: fc.constantFrom('cards', 'compact'), weight: 3 }, { arbitrary: fc.constantFrom('CARDS', ' compact', ''), weight: 1 }, { arbitrary: text, weight: 1 }),
      channel: fc.oneof(
        { arbitrary: fc.constant(() => seed.general.id), weight: 3 },
        { arbitrary: fc.constantFrom(() => seed.secret.id, () => seed.otherChannel.id, () => 'general'), weight: 2 },
        { arbitrary: text.map((t) => () => t), weight: 1 },
      ),
      back: fc.oneof(fc.constantFrom('/feed', '/feed/unread', '//evil.example', 'https://evil.example/'), text),
      reveal: fc.oneof(fc.constant('1'), text),
      // The posts list of a chat channel (issue 29): its sort, tag filter and cursor.
      sort: fc.oneof(fc.constantFrom('activity', 'reactions'), text),
      tag: text,
      cursor: fc.oneof(fc.constant('1700000000000.1400000000000000120'), text),
      fragment: fc.oneof(fc.constant('1'), text),
      // A long thread's later page.
      after: fc.oneof(fc.constant('14000000000000001201'), text),
    },
    { requiredKeys: [] },
  ),
  // A raw body (no form, no CSRF token) for one probe in five: fc.option's `freq` is the odds of null
  // (1 in 5), which made raw bodies the four in five and left too few well-formed posts to reach success.
  raw: fc.oneof(
    { arbitrary: fc.constant(null), weight: 4 },
    { arbitrary: fc.oneof(fc.string({ maxLength: 200 }), fc.constant('%%%&&&='), fc.constant('density=' + 'x'.repeat(70 * 1024))), weight: 1 },
  ),
});

type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

async function send(p: Probe) {
  const form = new URLSearchParams();
  if (p.csrf !== 'none') form.set('_csrf', p.csrf === 'good' ? client.csrf! : 'x'.repeat(86));
  for (const [k, v] of Object.entries(p.fields)) form.set(k, typeof v === 'function' ? v() : String(v));
  const headers: Record<string, string> = { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: h.origin, accept: 'text/html' };
  if (p.type) headers['content-type'] = p.type;
  if (p.htmx) headers['hx-request'] = 'true';
  const get = p.route.method === 'GET';
  const url = `${h.config.publicUrl}${p.route.path}${get ? `?${form.toString()}` : ''}`;
  const res = await fetch(url, { method: p.route.method, headers, body: get ? undefined : (p.raw ?? form.toString()), redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), location: res.headers.get('location') };
}

describe('feed routes under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, 4xx as error pages, local redirects, nothing stored where it must not be`, { timeout: Math.max(60_000, RUNS * 80) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        // Three 5,000-character fields in a GET's query pass Node's 16 KB header limit: its parser
        // answers 431 with no body before the app sees the request. Nothing reached the service.
        if (a.status === 431 && p.route.method === 'GET') return true;
        if (a.status >= 500) throw new Error(`${p.route.method} ${p.route.path} → ${a.status}: ${a.text.slice(0, 200)}`);
        if (a.status >= 400 && !a.type.startsWith('application/problem+json') && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        if (a.location !== null) expect(a.location).toMatch(/^\/(feed|search)(?:[/?]|$)/);
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const densities = await h.query<{ feed_density: string }>('SELECT feed_density FROM user_settings');
    for (const d of densities) expect(['cards', 'compact']).toContain(d.feed_density);
    const where = await h.query<{ channel_id: string }>('SELECT DISTINCT channel_id FROM alerts');
    for (const w of where) expect([seed.general.id, seed.deploys.id, community.id]).toContain(w.channel_id);
  });

  it('the generated requests reach success, refused values, unknown channels and CSRF refusal', () => {
    const seen = JSON.stringify([...statuses]);
    for (const status of [200, 400, 403, 404]) expect(statuses.get(status) ?? 0, `status ${status} in ${seen}`).toBeGreaterThan(0);
    expect((statuses.get(303) ?? 0) + (statuses.get(204) ?? 0), `303 or 204 in ${seen}`).toBeGreaterThan(0);
  });
});
