import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Hostile input to the dashboard's routes (issue 27) over real HTTP: the add form of every kind,
 * the filters and target forms, the per-route buttons with odd ids, the kind picker and an alert's
 * delivery log. No 5xx ever; every 4xx a problem document or the dashboard's HTML error page; a
 * refused form stores nothing and every stored route is well-formed. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let client: DashClient;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let routeId: string;
let alertId: string;
const statuses = new Map<number, number>();
let created = 0;

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
  routeId = (await h.services.routes.routes.create(seed.general.id, 'slack', { url: 'https://hooks.slack.com/services/T0/B0/XXXX' }, {})).id;
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Disk full' }) });
  alertId = ((await res.json()) as { alertId: string }).alertId;
  client = new DashClient(h);
  await client.signInWithLink(seed.owner.id);
  await client.get(`/channels/${seed.general.id}`);
});
afterAll(async () => {
  await h?.close();
});

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '%ff', '../', '<script>', "'; DROP TABLE routes;--", '__proto__', 'constructor', '\r\nX: y');
const text = (max: number) => fc.oneof(fc.string({ maxLength: max }), nasty, fc.constant('x'.repeat(max * 3)));
const url = fc.oneof(
  fc.constantFrom('https://hooks.slack.com/services/T/B/x', 'https://ntfy.sh/topic', 'https://ntfy.sh/a/b', 'http://127.0.0.1/x', 'http://[::1]/', 'http://169.254.169.254/latest', 'https://u:p@example.com/', 'javascript:alert(1)', 'https://example.com/#frag', 'https://localhost/x', ''),
  fc.webUrl(),
  text(40),
);
const form = fc.record(
  {
    kind: fc.oneof(fc.constantFrom('slack', 'discord', 'teams', 'telegram', 'matrix', 'ntfy', 'webhook', 'SLACK', ''), text(10)),
    url,
    token: text(30),
    secret: fc.oneof(fc.constantFrom('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'whsec_!!', ''), text(60)),
    botToken: text(40),
    chatId: fc.oneof(fc.constantFrom('-100123', ''), text(20)),
    apiUrl: url,
    accessToken: text(40),
    room: text(30),
    minLevel: fc.oneof(fc.constantFrom('INFO', 'ERROR', 'error', ''), text(8)),
    event_opened: fc.constantFrom('on', '', 'yes'),
    event_resolved: fc.constantFrom('on', ''),
    source: text(30),
    fields: fc.oneof(fc.constantFrom('a=b', 'env=prod\nregion=eu', '=x', 'novalue', Array.from({ length: 12 }, (_, i) => `k${i}=v`).join('\n')), text(60)),
    ratePerMinute: fc.oneof(fc.constantFrom('30', '0', '601', '-1', '1.5', '1e3', ''), text(6)),
  },
  { requiredKeys: [] },
);
const id = fc.oneof(fc.constant('real'), fc.constantFrom('rt_01M8EQ72VMBWJGBE7XN4F26218', '..%2f', '%00', ''), text(30));
const probe = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), form, csrf: fc.constantFrom('good', 'good', 'good', 'none', 'wrong') }),
  fc.record({ kind: fc.constant('filters' as const), id, form }),
  fc.record({ kind: fc.constant('target' as const), id, form }),
  // Never the real route: a test would send, and pause, resume and delete have their own tests.
  fc.record({ kind: fc.constant('button' as const), action: fc.constantFrom('test', 'pause', 'resume', 'delete', 'nope'), id: id.filter((x) => x !== 'real') }),
  fc.record({ kind: fc.constant('picker' as const), pick: fc.oneof(fc.constantFrom('slack', 'webhook'), text(20)) }),
  fc.record({ kind: fc.constant('log' as const), alert: fc.oneof(fc.constant('real'), text(40)) }),
);
type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

/** Percent-encoded, a lone surrogate as U+FFFD (what a browser sends for one). */
const pathPart = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

async function send(p: Probe) {
  const base = `${h.config.publicUrl}/channels/${seed.general.id}/routes`;
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const html = { cookie, origin: h.origin, accept: 'text/html' };
  const post = (path: string, fields: Record<string, string>, csrf = 'good') => {
    const body = new URLSearchParams();
    if (csrf !== 'none') body.set('_csrf', csrf === 'good' ? client.csrf! : 'x'.repeat(86));
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return fetch(path, { method: 'POST', headers: { ...html, 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString(), redirect: 'manual' });
  };
  const routePath = (x: string) => `${base}/${x === 'real' ? routeId : pathPart(x)}`;
  let res: Response;
  if (p.kind === 'create') {
    res = await post(base, p.form, p.csrf);
    if (res.status === 303) created++;
  } else if (p.kind === 'filters' || p.kind === 'target') {
    res = await post(`${routePath(p.id)}/${p.kind}`, p.form);
  } else if (p.kind === 'button') {
    res = await post(`${routePath(p.id)}/${p.action}`, {});
  } else if (p.kind === 'picker') {
    res = await fetch(`${base}/new?kind=${pathPart(p.pick)}`, { headers: html, redirect: 'manual' });
  } else {
    res = await fetch(`${h.config.publicUrl}/alerts/${p.alert === 'real' ? alertId : pathPart(p.alert)}/deliveries`, { headers: html, redirect: 'manual' });
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('routes in the dashboard under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, typed 4xx, refused forms store nothing`, { timeout: Math.max(60_000, RUNS * 80) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${p.kind} → ${a.status}: ${a.text.slice(0, 300)}`);
        if (a.status >= 400 && !a.type.startsWith('application/problem+json') && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const stored = await h.services.routes.routes.list(seed.general.id);
    expect(stored).toHaveLength(created + 1);
    for (const r of stored) {
      expect(r.events.length).toBeGreaterThan(0);
      expect(r.ratePerMinute).toBeGreaterThanOrEqual(1);
      expect(r.ratePerMinute).toBeLessThanOrEqual(600);
      expect(r.fields.length).toBeLessThanOrEqual(10);
      expect(r.disabled).toBeNull();
    }
  });

  it('the generated requests reach success, refusal and not found', () => {
    const seen = JSON.stringify([...statuses]);
    for (const status of [200, 303, 400, 404]) expect(statuses.get(status) ?? 0, `status ${status} in ${seen}`).toBeGreaterThan(0);
  });
});
