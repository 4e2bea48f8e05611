import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HeartbeatCheck } from '../../src/domain/heartbeats/ports.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';

/**
 * Hostile input to the ping URLs and GET /api/heartbeats (issue 28), over real HTTP: no 5xx ever;
 * a ping URL answers one of Healthchecks' plain-text bodies, anything else a problem document or the
 * dashboard's page; every stored ping is well-formed (a known kind, at most 10 KB of log). FUZZ_RUNS /
 * FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PING_BODIES = new Set(['OK', 'not found', 'invalid url format', 'invalid uuid format', 'rate limit exceeded', '']);

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let check: HeartbeatCheck;
let pingKey: string;
const statuses = new Map<number, number>();

beforeAll(async () => {
  h = await startHarness({ serve: true });
  seed = await seedWorkspace(h.services);
  check = await h.services.heartbeats.checks.create({ channelId: seed.general.id, name: 'Fuzzed job', period: '1m', grace: '1m' });
  pingKey = await h.services.heartbeats.checks.pingKey(seed.ws.id);
});
afterAll(async () => h?.close());

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '%ff', '..', '%2e%2e', '<script>', "'; DROP TABLE heartbeat_checks;--", '__proto__', '\r\nX: y', '-1', '256', '00', '1e3', ' ');
const text = (max: number) => fc.oneof(fc.string({ maxLength: max }), nasty);
const part = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

const probe = fc.record({
  method: fc.constantFrom('GET', 'POST', 'HEAD', 'PUT', 'DELETE'),
  credential: fc.oneof(fc.constantFrom('uuid', 'slug', 'uuid-upper', 'unknown-uuid'), text(40)),
  suffix: fc.option(fc.oneof(fc.constantFrom('start', 'fail', 'log', '0', '1', '255', 'START', '9999', 'start/extra'), text(20)), { nil: undefined }),
  rid: fc.option(fc.oneof(fc.constant('9f0e1d2c-3b4a-4596-8877-665544332211'), text(40)), { nil: undefined }),
  body: fc.option(fc.oneof(text(200), fc.constant('x'.repeat(50_000)), fc.constant('\u0000\u0001binary\udfff')), { nil: undefined }),
  api: fc.boolean(),
  token: fc.oneof(fc.constant('owner'), text(60)),
});
type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

async function send(p: Probe) {
  if (p.api) {
    const token = p.token === 'owner' ? seed.ownerToken : [...p.token].filter((ch) => ch >= ' ' && ch <= '~').join('');
    const res = await fetch(`${h.base}/api/heartbeats`, { headers: { authorization: `Bearer ${token}` } });
    return { ping: false, status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }
  const head =
    p.credential === 'uuid'
      ? check.pingUuid
      : p.credential === 'uuid-upper'
        ? check.pingUuid.toUpperCase()
        : p.credential === 'unknown-uuid'
          ? '00000000-0000-4000-8000-000000000000'
          : p.credential === 'slug'
            ? `${pingKey}/${check.slug}`
            : part(p.credential);
  const path = `/ping/${head}${p.suffix === undefined ? '' : `/${p.suffix.split('/').map(part).join('/')}`}${p.rid === undefined ? '' : `?rid=${part(p.rid)}`}`;
  const withBody = p.body !== undefined && p.method !== 'GET' && p.method !== 'HEAD';
  const res = await fetch(`${h.base}${path}`, { method: p.method, body: withBody ? p.body : undefined, redirect: 'manual' });
  return { ping: true, status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('heartbeat pings under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, Healthchecks' answers or problem documents`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${JSON.stringify(p).slice(0, 200)} → ${a.status}: ${a.text.slice(0, 200)}`);
        const plain = a.type.startsWith('text/plain') && PING_BODIES.has(a.text);
        const problem = a.type.startsWith('application/problem+json') || a.type.startsWith('application/json');
        const page = a.type.startsWith('text/html');
        if (a.status >= 400 && !plain && !problem && !page) throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const pings = await h.services.heartbeats.checks.pings(check.id, 1000);
    for (const p of pings) {
      expect(['success', 'fail', 'start', 'log']).toContain(p.kind);
      expect((p.body ?? '').length).toBeLessThanOrEqual(10_000);
      if (p.exitStatus !== null) expect(p.exitStatus).toBeGreaterThanOrEqual(0);
    }
    expect(['new', 'up', 'down', 'paused']).toContain((await h.services.heartbeats.checks.require(check.id)).status);
  });

  it('the generated requests reach success, not found and refusal', () => {
    const seen = [...statuses.keys()];
    for (const s of [200, 400, 404, 401]) expect(seen, JSON.stringify([...statuses])).toContain(s);
  });
});
