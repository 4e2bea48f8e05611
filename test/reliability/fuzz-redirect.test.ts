import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';
import { seedWorkspace } from '../helpers/harness.js';

/**
 * Generated redirect targets (`next` at sign-in, `back` on the feed) over real HTTP, signed in: never
 * a 5xx, always a 303 whose Location, resolved as a browser resolves it (tabs and newlines dropped,
 * backslashes read as slashes), stays on this origin. FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: DashHarness;
let client: DashClient;
beforeAll(async () => {
  h = await startDashboard();
  const seed = await seedWorkspace(h.services);
  client = new DashClient(h);
  await client.signInWithLink(seed.member.id);
  await client.get('/feed');
});
afterAll(() => h?.close());

const piece = fc.constantFrom(
  '/', '//', '\\', '/\\', '\t', '\n', '\r', ' ', '\u0000', '\u0085', '\u2028', '%09', '%0a', '%0D', '%2F', '%5C', '%2509', '%', '.', '..', '@', ':', '?', '#',
  'evil.example', 'feed', 'search', 'http:', 'https:', 'javascript:', 'data:', 'HTTP://', 'localhost', '127.0.0.1', 'alertbridge.test', '😀', 'a',
);
const target = fc.array(piece, { minLength: 0, maxLength: 8 }).map((parts) => parts.join(''));

/** Where a browser goes for this Location: WHATWG URL parsing is what Chromium does with it. */
function staysHome(location: string | null): boolean {
  if (location === null) return false;
  return new URL(location.replace(/[\t\n\r]/g, ''), h.config.publicUrl).origin === h.origin;
}

describe('hostile redirect targets (property-based)', () => {
  it(`next and back: ${RUNS} generated values, no 5xx, every redirect on this origin`, { timeout: Math.max(60_000, RUNS * 40) }, async () => {
    await fc.assert(
      fc.asyncProperty(target, async (raw) => {
        const next = await h.app.request(`/sign-in?${new URLSearchParams({ next: raw })}`, { headers: { cookie: `${[...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ')}`, accept: 'text/html' } });
        expect(next.status).toBe(303);
        expect(staysHome(next.headers.get('location')), next.headers.get('location') ?? '').toBe(true);
        const back = await client.post('/feed/read-all', { back: raw });
        expect(back.res.status).toBe(303);
        expect(back.res.headers.get('location')).toMatch(/^\/(?:feed|search)(?:[/?]|$)/);
        expect(staysHome(back.res.headers.get('location'))).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
