import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/domain/accounts.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Hostile input to the invitation routes (/members/invite, /members/invitations/:id/*, /invite,
 * /invite/accept, /invitations/:id/*) over real HTTP, as the workspace's owner, as a member and as
 * nobody: no 5xx ever; every 4xx the dashboard's HTML error page or a problem document; what was
 * stored is an invitation to an e-mail address with a known role, and no account is made but by
 * accepting an open invitation. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let clients: Record<'owner' | 'member' | 'nobody', DashClient>;
let link: { id: string; secret: string };
const statuses = new Map<number, number>();

beforeAll(async () => {
  h = await startDashboard();
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  const member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
  clients = { owner, member, nobody: new DashClient(h) };
  // A real pending invitation, so that probes reach past "not found".
  const sent = await h.app.request('/members/invite', {
    method: 'POST',
    headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '), origin: h.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: owner.csrf!, email: 'target@acme.test', role: 'member' }).toString(),
  });
  // Post/Redirect/Get: the link is shown once, on the page the invitation redirects to (a flash).
  expect(sent.status).toBe(303);
  const shown = await h.app.request(sent.headers.get('location')!, { headers: { cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
  const secret = /\/invite\?t=([A-Za-z0-9_-]{43})/.exec(await shown.text())![1]!;
  link = { id: (await h.query<{ id: string }>('SELECT id FROM invitations'))[0]!.id, secret };
});
afterAll(() => h?.close());

/** encodeURIComponent refuses lone surrogates; a client would send U+FFFD's bytes instead. */
const enc = (t: string) => encodeURIComponent(Buffer.from(t, 'utf8').toString('utf8'));
const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '../', '<script>x</script>', "'; DROP TABLE invitations;--", '__proto__', 'constructor', 'a@b', 'x'.repeat(300), ' ');
const text = fc.oneof(fc.string({ maxLength: 80 }), nasty, fc.emailAddress(), fc.constantFrom('owner@acme.test', 'stranger@other.test', 'Target@Acme.test'));
const segment = fc.oneof(fc.constantFrom('@invitation', 'inv_nope', '%00', '..', '__proto__', 'constructor'), fc.string({ maxLength: 30 }).map(enc));
const pathArb = fc.tuple(fc.nat(8), segment, fc.oneof(fc.constant('@secret'), text)).map(([i, seg, t]) => {
  const paths = [
    '/members/invite',
    `/members/invitations/${seg}/reissue`,
    `/members/invitations/${seg}/withdraw`,
    `/invitations/${seg}/accept`,
    `/invitations/${seg}/decline`,
    '/invite/accept',
    `/invite?t=${enc(t)}`,
    '/invite',
    '/members',
  ];
  return paths[i]!;
});
const form = fc.dictionary(
  fc.oneof(fc.constantFrom('email', 'role', 'name', 'password', 'repeat_password', 't', 'confirm_password', '_csrf', '__proto__'), fc.string({ maxLength: 10 })),
  fc.oneof(text, fc.constantFrom(...ROLES, 'OWNER', 'superuser'), fc.constant('@secret')),
  { maxKeys: 6 },
);
interface Probe {
  as: 'owner' | 'member' | 'nobody';
  method: string;
  path: string;
  type: string;
  csrf: string;
  origin: string;
  form: Record<string, string>;
}
const anyProbe: fc.Arbitrary<Probe> = fc.record({
  as: fc.constantFrom<Probe['as']>('owner', 'owner', 'member', 'nobody'),
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
  path: pathArb,
  type: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'application/json', 'text/plain', ''),
  csrf: fc.constantFrom('good', 'good', 'good', 'none', 'wrong'),
  origin: fc.constantFrom('ours', 'ours', 'ours', 'evil', 'none'),
  form,
});
// The owner's own well-formed form, with hostile fields, now and then: validation and acceptance are reached too.
const ownersForm: fc.Arbitrary<Probe> = fc
  .record({ path: fc.constantFrom('/members/invite', '/invite/accept', '/members/invitations/@invitation/reissue'), email: text, role: fc.oneof(fc.constantFrom(...ROLES), text), name: text, password: text })
  .map(({ path, email, role, name, password }) => ({
    as: 'owner' as const,
    method: 'POST',
    path,
    type: 'application/x-www-form-urlencoded',
    csrf: 'good',
    origin: 'ours',
    form: { email, role, name, password, repeat_password: password, t: '@secret' },
  }));
const probe = fc.oneof({ arbitrary: anyProbe, weight: 3 }, { arbitrary: ownersForm, weight: 1 });

async function send(p: Probe) {
  // Accepting an invitation signs the browser in as the new account, ending the session it had: the owner's must last.
  const client = clients[p.as === 'owner' && p.path.startsWith('/invite/accept') ? 'nobody' : p.as];
  const real = (v: string) => v.replace('@secret', link.secret).replace('@invitation', link.id);
  const headers: Record<string, string> = { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), accept: 'text/html' };
  if (p.type) headers['content-type'] = p.type;
  if (p.origin !== 'none') headers.origin = p.origin === 'ours' ? h.origin : 'https://evil.example';
  const fields = Object.fromEntries(Object.entries(p.form).map(([k, v]) => [k, real(v)]));
  if (p.csrf !== 'none' && client.csrf) fields._csrf = p.csrf === 'good' ? client.csrf : 'x'.repeat(43);
  const body = p.method === 'GET' ? undefined : new URLSearchParams(fields).toString();
  const res = await h.app.request(real(p.path), { method: p.method, headers, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('invitation routes under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, 4xx as error pages or problem documents, nothing unsafe stored`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.status >= 500) throw new Error(`${p.method} ${p.path} → ${a.status}: ${a.text.slice(0, 300)}`);
        if (a.status >= 400 && !a.type.startsWith('application/problem+json') && !(a.type.startsWith('text/html') && /^<!doctype html>/i.test(a.text))) {
          throw new Error(`${p.method} ${p.path} → ${a.status} as ${a.type}: ${a.text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    const stored = await h.query<{ email: string; role: string; workspace_id: string }>('SELECT email, role, workspace_id FROM invitations');
    for (const inv of stored) {
      expect(inv.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
      expect(ROLES).toContain(inv.role);
    }
    // Accounts: the three seeded, plus at most the one the open invitation could make.
    const users = await h.query<{ email: string }>('SELECT email FROM users');
    expect(users.length).toBeLessThanOrEqual(4);
    for (const u of users) expect(['owner@acme.test', 'member@acme.test', 'stranger@other.test', 'target@acme.test']).toContain(u.email.toLowerCase());
  });

  it('the generated requests reach success, redirects, validation, refusal, not found and gone', () => {
    for (const status of [200, 303, 400, 403, 404, 410]) expect(statuses.get(status) ?? 0, `status ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
  });
});
