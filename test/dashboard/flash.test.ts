import { afterEach, describe, expect, it } from 'vitest';
import { FLASH_TTL_MS } from '../../src/domain/auth/flashes.js';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** The flash of a Post/Redirect/Get (src/domain/auth/flashes.ts), on the engine TEST_ENGINE names. */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  h = await startDashboard({ serve: false, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  return { h, clock, seed, owner };
}

const tokenOn = (html: string) => /value="(ab_[0-9a-f]{48})"/.exec(html)?.[1];

describe('flash', () => {
  it('shows a new token once, on the page the POST redirects to; a reload shows it no more', async () => {
    const { h, owner } = await setup();
    const made = await owner.submit('/tokens', { name: 'CI deploy script' });
    expect(made.posted.status).toBe(303);
    expect(made.location).toMatch(/^\/tokens\?created=1&flash=[A-Za-z0-9_-]{22}$/);
    const token = tokenOn(made.html);
    expect(token).toBeDefined();
    // Stored sealed: neither the token nor any piece of it is in the row, and the row is gone once read.
    expect(await h.query('SELECT id FROM flashes')).toEqual([]);
    const reload = await owner.get(made.location!);
    expect(tokenOn(reload.html)).toBeUndefined();
    expect(reload.html).toContain('A new token is shown only once');
    expect(await h.query<{ n: number }>("SELECT count(*) AS n FROM audit_log WHERE action = 'token.created'")).toEqual([{ n: 1 }]);
  });

  it('holds only ciphertext, opens for its own session only, and expires after five minutes', async () => {
    const { h, clock, seed, owner } = await setup();
    const posted = await owner.post('/tokens', { name: 'sealed' });
    const location = posted.res.headers.get('location')!;
    const rows = await h.query<{ sealed: string; session_hash: string }>('SELECT sealed, session_hash FROM flashes');
    expect(rows).toHaveLength(1);
    // The session's cookie is not in the database, nor the token: only its SHA-256 names the session.
    const cookie = [...owner.cookies.values()][0]!;
    expect(rows[0]!.session_hash).not.toContain(cookie);
    expect(Buffer.from(rows[0]!.sealed, 'base64url').toString('latin1')).not.toContain('ab_');
    expect(rows[0]!.sealed).not.toContain('sealed');

    // Another person's session with the flash's address: nothing shown, and the flash stays for its owner.
    const other = new DashClient(h);
    await other.signInWithLink(seed.member.id);
    expect(tokenOn((await other.get(location)).html)).toBeUndefined();
    expect(await h.query('SELECT id FROM flashes')).toHaveLength(1);

    clock.advance(FLASH_TTL_MS);
    expect(tokenOn((await owner.get(location)).html)).toBeUndefined();
    expect(await h.query('SELECT id FROM flashes')).toEqual([]);
  });

  it('goes with its session: signing out deletes unread flashes', async () => {
    const { h, owner } = await setup();
    await owner.post('/tokens', { name: 'left unread' });
    expect(await h.query('SELECT id FROM flashes')).toHaveLength(1);
    await owner.post('/sign-out');
    expect(await h.query('SELECT id FROM flashes')).toEqual([]);
  });
});
