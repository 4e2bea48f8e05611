import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * Password sign-in takes e-mail addresses only: the account look-up also matches user ids, and a
 * user id typed in the e-mail field used to sign in under a rate-limit key of its own, after the
 * address's five guesses were spent.
 */
const PASSWORD = 'correct horse battery';
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  h = await startDashboard({ overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  await h.services.accountAuth.passwords.set(seed.owner.id, PASSWORD);
  return { h, seed };
}

const sessions = (h: DashHarness, userId: string) => h.query<{ n: number }>('SELECT count(*) AS n FROM sessions WHERE user_id = ?', [userId]).then((r) => Number(r[0]!.n));

describe('password sign-in by address only', () => {
  it('a user id in the e-mail field, with the right password, is refused like an unknown address', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    const byId = await c.post('/sign-in', { email: seed.owner.id, password: PASSWORD });
    expect(byId.res.status).toBe(401);
    expect(byId.html).toContain('That e-mail and password do not match an account with a password.');
    expect(c.cookies.size).toBe(0);
    expect(await sessions(h, seed.owner.id)).toBe(0);
    const byAddress = await c.post('/sign-in', { email: 'Owner@Acme.test', password: PASSWORD });
    expect(byAddress.res.status).toBe(303);
    expect(await sessions(h, seed.owner.id)).toBe(1);
  });

  it('once the address has spent its guesses, neither the address nor the user id signs in', async () => {
    const { h, seed } = await setup();
    const c = new DashClient(h);
    for (let i = 0; i < 5; i++) expect((await c.post('/sign-in', { email: 'owner@acme.test', password: `guess number ${i}` })).res.status).toBe(401);
    expect((await c.post('/sign-in', { email: 'owner@acme.test', password: PASSWORD })).res.status).toBe(429);
    for (const email of [seed.owner.id, ` ${seed.owner.id} `, seed.owner.id.toUpperCase()]) {
      const res = await c.post('/sign-in', { email, password: PASSWORD });
      expect(res.res.status, email).not.toBe(303);
    }
    expect(c.cookies.size).toBe(0);
    expect(await sessions(h, seed.owner.id)).toBe(0);
  });
});
