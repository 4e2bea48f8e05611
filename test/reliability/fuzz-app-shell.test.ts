import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type DashHarness } from '../dashboard/helpers.js';

/**
 * Hostile requests to the installable app's files (/manifest.webmanifest and
 * /icons/*) over real HTTP: no 5xx ever, only the four icons answer 200, and a
 * refusal is the dashboard's HTML error page or a problem document. Nothing
 * outside the icon list is ever served (no path traversal to the source tree).
 * FUZZ_RUNS / FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const ICONS = ['icon-192.png', 'icon-512.png', 'icon-maskable-512.png', 'apple-touch-icon.png'];

let h: DashHarness;
const statuses = new Map<number, number>();
beforeAll(async () => {
  h = await startDashboard();
});
afterAll(() => h?.close());

const nasty = fc.constantFrom('..%2F..%2Fpackage.json', '%2e%2e/icon.svg', 'icon.svg', '%00', '\u202e', '😀', 'icon-192.png%00.svg', 'ICON-192.PNG', '__proto__', 'constructor', 'a'.repeat(3000));
const file = fc.oneof(fc.constantFrom(...ICONS), nasty, fc.string({ maxLength: 60 }).map(encodeURIComponent));
const probe = fc.record({
  path: fc.oneof(
    file.map((f) => `/icons/${f}`),
    fc.constantFrom('/manifest.webmanifest', '/manifest.webmanifest?x=%00', '/manifest.webmanifest/', '/icons', '/icons/'),
  ),
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE'),
  accept: fc.constantFrom('text/html', 'application/json', '*/*', ''),
});

describe('the app manifest and icons under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx, only the manifest and the four icons served`, { timeout: Math.max(60_000, RUNS * 40) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const res = await fetch(`${h.config.publicUrl}${p.path}`, { method: p.method, headers: p.accept ? { accept: p.accept } : {} });
        const type = res.headers.get('content-type') ?? '';
        const text = p.method === 'HEAD' ? '' : await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) throw new Error(`${p.method} ${p.path} → ${res.status}: ${text.slice(0, 200)}`);
        if (res.status === 200) {
          const served = p.path === '/manifest.webmanifest' || p.path.startsWith('/manifest.webmanifest?') ? 'manifest' : decodeURIComponent(p.path.slice('/icons/'.length));
          expect(['manifest', ...ICONS]).toContain(served);
          expect(type).toMatch(served === 'manifest' ? /^application\/manifest\+json/ : /^image\/png$/);
        } else if (res.status >= 400 && p.method !== 'HEAD' && !type.startsWith('application/problem+json') && !(type.startsWith('text/html') && /^<!doctype html>/i.test(text))) {
          throw new Error(`${res.status} as ${type}: ${text.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('the generated requests reach both the files and the refusals', () => {
    for (const status of [200, 404]) expect(statuses.get(status) ?? 0, `status ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
  });
});
