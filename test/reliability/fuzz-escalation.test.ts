import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { DashClient, cliEnv, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Hostile input to escalation per channel, over real HTTP and the admin CLI: the channel settings'
 * escalation form and its "turn off" button, and `channel set-escalation`. No 5xx ever; every 4xx
 * the dashboard's HTML error page; a refused form or command stores nothing; every stored policy is
 * within the limits. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let client: DashClient;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const statuses = new Map<number, number>();

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
  client = new DashClient(h);
  await client.signInWithLink(seed.owner.id);
  await client.get(`/channels/${seed.general.id}`);
});
afterAll(async () => {
  await h?.close();
});

const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '%ff', '../', '<script>', "'; DROP TABLE escalation_policies;--", '__proto__', 'constructor', '\r\nX: y');
const text = (max: number) => fc.oneof(fc.string({ maxLength: max }), nasty, fc.constant('x'.repeat(max * 3)));
const duration = fc.oneof(fc.constantFrom('', '30s', '10m', '2h', '1d', '31d', '29s', '0m', '1.5h', '-1h', '999999d', ' 10m ', '10M'), text(12));
const form = fc.record(
  {
    escalation_level: fc.oneof(fc.constantFrom('', 'ERROR', 'warning', 'loud'), text(10)),
    escalation_after: duration,
    escalation_every: duration,
    escalation_times: fc.oneof(fc.constantFrom('', '0', '1', '10', '11', '-1', '1e1', '٣', '007'), text(6)),
    escalate_to: fc.oneof(fc.constantFrom('member', 'owner', 'stranger'), text(20)),
  },
  { requiredKeys: [] },
);
const probe = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), form, channel: fc.oneof(fc.constantFrom('general', 'general', 'other', 'ch_nope', '..%2f'), text(20)), raw: fc.option(text(200), { freq: 6 }) }),
  fc.record({ kind: fc.constant('clear' as const), channel: fc.oneof(fc.constantFrom('general', 'other', '%00'), text(20)) }),
  fc.record({ kind: fc.constant('cli' as const), args: fc.constantFrom(['--min-level', 'error', '--after', '10m', '--every', '1h', '--times', '3'], ['--clear'], ['--min-level', 'warning', '--after', '30s', '--every', '30s', '--times', '1', '--then', 'member@acme.test']) }),
  fc.record({ kind: fc.constant('cli' as const), args: fc.array(fc.oneof(fc.constantFrom('--min-level', '--after', '--every', '--times', '--then', '--clear', 'error', '10m', 'owner@acme.test,'), text(20)), { maxLength: 8 }) }),
);
type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

const pathPart = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const channelPath = (c: string) => (c === 'general' ? seed.general.id : c === 'other' ? seed.otherChannel.id : pathPart(c));
const userOf = (who: string) => (who === 'member' ? seed.member.id : who === 'owner' ? seed.owner.id : who === 'stranger' ? seed.stranger.id : who);

async function send(p: Probe): Promise<{ status: number; type: string; text: string }> {
  if (p.kind === 'cli') {
    const r = await runAdmin(['channel', 'set-escalation', '--channel', seed.general.id, ...p.args], { ...cliEnv(h), LOG_LEVEL: 'silent' });
    // The CLI's answers: 0 done, 2 a usage or validation error, 1 refused; never a crash.
    return { status: r.code === 0 ? 200 : r.code === 2 ? 400 : r.code === 1 ? 404 : 500, type: 'cli', text: r.stderr };
  }
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const headers = { cookie, origin: h.origin, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams({ _csrf: client.csrf! });
  let path = `/channels/${channelPath(p.channel)}/escalation`;
  if (p.kind === 'set') {
    for (const [k, v] of Object.entries(p.form)) body.set(k === 'escalate_to' ? `escalate_to_${userOf(v)}` : k, k === 'escalate_to' ? 'on' : v);
  } else path += '/clear';
  const res = await fetch(`${h.config.publicUrl}${path}`, { method: 'POST', headers, body: p.kind === 'set' && p.raw ? p.raw : body.toString(), redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('escalation settings under hostile input', () => {
  it(`${RUNS} generated requests and commands: no 5xx, typed 4xx, only valid policies stored`, { timeout: Math.max(90_000, RUNS * 150) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${p.kind} → ${a.status}: ${a.text.slice(0, 200)}`);
        if (a.type !== 'cli' && a.status >= 400 && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const stored = await h.query<{ channelId: string; minLevel: string; afterMs: number; everyMs: number; times: number; thenJson: string | null }>(
      'SELECT channel_id AS "channelId", min_level AS "minLevel", after_ms AS "afterMs", every_ms AS "everyMs", times, then_json AS "thenJson" FROM escalation_policies',
    );
    for (const s of stored) {
      expect(s.channelId).toBe(seed.general.id);
      expect(['INFO', 'SUCCESS', 'WARNING', 'ERROR']).toContain(s.minLevel);
      for (const ms of [Number(s.afterMs), Number(s.everyMs)]) expect(ms >= 30_000 && ms <= 30 * 86_400_000).toBe(true);
      expect(Number(s.times) >= 1 && Number(s.times) <= 10).toBe(true);
      for (const id of s.thenJson === null ? [] : (JSON.parse(s.thenJson) as string[])) expect([seed.owner.id, seed.member.id]).toContain(id);
    }
  });

  it('the generated requests reach success and refusal', () => {
    const seen = JSON.stringify([...statuses]);
    for (const status of [200, 303, 400, 404]) expect(statuses.get(status) ?? 0, `status ${status} in ${seen}`).toBeGreaterThan(0);
  });
});
