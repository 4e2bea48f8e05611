import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, testEngine, type Harness, seedWorkspace } from '../helpers/harness.js';
import { bodyOf } from '../helpers/bodies.js';

let h: Harness;
afterEach(async () => h?.close());

async function get401(headers: Record<string, string>) {
  const res = await h.call('GET', '/api/channels', { headers });
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await bodyOf.authFailure(res);
  expect(Object.keys(body).sort()).toEqual(['docs', 'error', 'message', 'reason']);
  expect(body.error).toBe('Unauthorized');
  expect(body.docs).toBe(`http://alertbridge.test/problems/${body.reason}`);
  expect(body.message!.length).toBeGreaterThan(20);
  return body;
}

/** A trigger that fails the last-used mark's UPDATE as a full disk does: SQLite's SQLITE_FULL message, PostgreSQL's disk_full (53100). */
const FULL_DISK = {
  sqlite: {
    create: [`CREATE TRIGGER full_disk BEFORE UPDATE OF last_used_at ON api_tokens BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`],
    drop: ['DROP TRIGGER full_disk'],
  },
  postgres: {
    create: [
      `CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`,
      'CREATE TRIGGER full_disk BEFORE UPDATE OF last_used_at ON api_tokens FOR EACH ROW EXECUTE FUNCTION full_disk()',
    ],
    drop: ['DROP TRIGGER full_disk ON api_tokens', 'DROP FUNCTION full_disk()'],
  },
};

describe('read API authentication', () => {
  it('names every 401 reason of the spec', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    expect((await get401({})).reason).toBe('no_credentials');
    expect((await get401({ authorization: `Token ${seed.ownerToken}` })).reason).toBe('malformed_authorization_header');
    expect((await get401({ authorization: seed.ownerToken })).reason).toBe('malformed_authorization_header');
    expect((await get401({ authorization: 'Bearer ' })).reason).toBe('token_env_var_unset');
    expect((await get401({ authorization: 'Bearer undefined' })).reason).toBe('token_env_var_unset');
    expect((await get401({ authorization: `Bearer ${seed.ownerToken.slice(0, -1)}` })).reason).toBe('invalid_token_format');
    expect((await get401({ authorization: 'Bearer xx_' + 'a'.repeat(48) })).reason).toBe('invalid_token_format');
    expect((await get401({ authorization: `Bearer ab_${'0'.repeat(48)}` })).reason).toBe('unknown_token');
  });

  it('stops a revoked token and a token whose user left the workspace', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    expect((await h.call('GET', '/api/channels', { token: seed.memberToken })).status).toBe(200);
    await h.services.accounts.removeMember(seed.ws.id, seed.member.id);
    expect((await get401({ authorization: `Bearer ${seed.memberToken}` })).reason).toBe('not_a_workspace_member');

    const t = await h.services.accounts.createToken(seed.ws.id, seed.owner.id, 'temp');
    expect((await h.call('GET', '/api/channels', { token: t.token })).status).toBe(200);
    await h.services.accounts.revokeToken(t.id);
    expect((await get401({ authorization: `Bearer ${t.token}` })).reason).toBe('unknown_token');
  });

  it('stores only the SHA-256 of a token and records its last use', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const rows = await h.query('SELECT * FROM api_tokens');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(seed.ownerToken);
    expect(dump).not.toContain(seed.ownerToken.slice(3));
    const hash = createHash('sha256').update(seed.ownerToken).digest('hex');
    expect(rows.some((r) => r.token_hash === hash)).toBe(true);
    const lastUsed = async () => (await h.query<{ t: number | null }>('SELECT last_used_at AS t FROM api_tokens WHERE token_hash = ?', [hash]))[0]!.t;
    expect(await lastUsed()).toBeNull();
    await h.call('GET', '/api/channels', { token: seed.ownerToken });
    expect(await lastUsed()).toBeGreaterThan(0);
  });

  it('answers a read even when the last-used mark cannot be written (a full disk), and records it once writes work again', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    // The error each engine raises on a full disk, for this one UPDATE only.
    for (const sql of FULL_DISK[testEngine()].create) await h.exec(sql);
    const hash = createHash('sha256').update(seed.ownerToken).digest('hex');
    const lastUsed = async () => (await h.query<{ t: number | null }>('SELECT last_used_at AS t FROM api_tokens WHERE token_hash = ?', [hash]))[0]!.t;
    const refused = await h.call('GET', '/api/channels', { token: seed.ownerToken });
    expect(refused.status).toBe(200);
    expect(await lastUsed()).toBeNull();
    for (const sql of FULL_DISK[testEngine()].drop) await h.exec(sql);
    expect((await h.call('GET', '/api/channels', { token: seed.ownerToken })).status).toBe(200);
    expect(await lastUsed()).toBeGreaterThan(0);
  });

  it('sends the RateLimit headers and X-Request-Id on every answer after authentication: the plain page, the channel list, a 404', async () => {
    h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '10' } });
    const seed = await seedWorkspace(h.services);
    const answers = [
      await h.call('GET', `/api/channels/${seed.general.slug}/alerts?limit=5`, { token: seed.ownerToken }),
      await h.call('GET', '/api/channels', { token: seed.ownerToken }),
      await h.call('GET', '/api/channels/no-such-channel/alerts', { token: seed.ownerToken }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 404]);
    answers.forEach((r, i) => {
      expect(r.headers.get('ratelimit-limit')).toBe('10');
      expect(r.headers.get('ratelimit-remaining')).toBe(String(9 - i));
      expect(r.headers.get('ratelimit-policy')).toBe('10;w=60');
      expect(r.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    });
    expect(answers[0]!.headers.get('content-type')).toBe('application/json');
  });

  it('rate-limits per token with 429, Retry-After and RateLimit headers', async () => {
    const clock = new ManualClock();
    h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '3' }, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    for (let i = 0; i < 3; i++) {
      const ok = await h.call('GET', '/api/channels', { token: seed.ownerToken });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await h.call('GET', '/api/channels', { token: seed.ownerToken });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const body = await bodyOf.problem(limited);
    expect(body).toMatchObject({ type: 'http://alertbridge.test/problems/rate-limited', status: 429, title: 'too many requests', error: 'too many requests' });
    // Another token has its own budget.
    expect((await h.call('GET', '/api/channels', { token: seed.memberToken })).status).toBe(200);
    clock.advance(60_000);
    expect((await h.call('GET', '/api/channels', { token: seed.ownerToken })).status).toBe(200);
  });
});
