import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { startDashboard, type DashHarness } from './helpers.js';

/**
 * Redirect targets taken from input (`next` at sign-in, `back` on the feed) over real HTTP: whatever is
 * typed, the browser is sent somewhere on this site (the start page when in doubt), never a 500.
 */
const MIN = 60_000;
const PASSWORD = 'correct horse battery';
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let clock: ManualClock;
let cookie: string;

/** Values as the server sees them once the query or form is decoded. */
const HOSTILE = [
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '\\/evil.example',
  '\\\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r/evil.example',
  '\r\n',
  '/x\r\nSet-Cookie: stolen=1',
  ' //evil.example',
  '\t//evil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  '/%0D%0ASet-Cookie:%20stolen=1',
  '/%',
  '/\u0085/evil.example',
  'https://evil.example/',
  'http://evil.example',
  'HTTP://EVIL.EXAMPLE',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  'mailto:x@evil.example',
  `/${'a'.repeat(5000)}`,
];
/** Query strings exactly as typed (not re-encoded), the reproductions among them. */
const RAW_QUERIES = ['/%09/evil.example', '%0a', '/%0d/evil.example', '/%0a%0dLocation:%20http://evil.example', '%2F%2Fevil.example', '/%5Cevil.example', '%5C%5Cevil.example', 'https:%2F%2Fevil.example'];

/** Where a Location header leads, resolved as a browser resolves it. */
const landsOn = (location: string | null) => new URL(location!, h.config.publicUrl);

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  h = await startDashboard({ overrides: { clock } });
  seed = await seedWorkspace(h.services);
  await h.services.accountAuth.passwords.set(seed.owner.id, PASSWORD);
  cookie = await signIn('/').then((r) => r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '));
});
afterAll(() => h.close());

async function signIn(next: string): Promise<Response> {
  // A minute between attempts: these tests are about `next`, not the sign-in rate limit.
  clock.advance(MIN);
  return await fetch(`${h.config.publicUrl}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: h.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'owner@acme.test', password: PASSWORD, next }).toString(),
  });
}

const get = (pathAndQuery: string, withSession: boolean) =>
  fetch(`${h.config.publicUrl}${pathAndQuery}`, { redirect: 'manual', headers: { accept: 'text/html', ...(withSession ? { cookie } : {}) } });

describe('next at sign-in', () => {
  it('keeps a path on this site, with its query and fragment; an absolute URL of this origin becomes its path', async () => {
    for (const [next, location] of [
      ['/tokens', '/tokens'],
      ['/feed?channel=general&level=error#top', '/feed?channel=general&level=error#top'],
      [`${h.config.publicUrl}/usage`, '/usage'],
      ['/.//evil.example', '/evil.example'],
    ] as const) {
      const res = await signIn(next);
      expect(res.status, next).toBe(303);
      expect(res.headers.get('location'), next).toBe(location);
    }
  });

  it('sends every hostile value to the start page: after a password, when already signed in, and in the form it renders', async () => {
    for (const next of HOSTILE) {
      const label = JSON.stringify(next);
      const posted = await signIn(next);
      expect(posted.status, label).toBe(303);
      expect(posted.headers.get('location'), label).toBe('/');

      const signedIn = await get(`/sign-in?${new URLSearchParams({ next })}`, true);
      expect(signedIn.status, label).toBe(303);
      expect(signedIn.headers.get('location'), label).toBe('/');

      const form = await get(`/sign-in?${new URLSearchParams({ next })}`, false);
      expect(form.status, label).toBe(200);
      expect(await form.text(), label).toContain('<input type="hidden" name="next" value="/"/>');
    }
  });

  it('answers the raw reproductions (%09, %0a, %0d, encoded slashes) with a redirect home, never a 500', async () => {
    for (const raw of RAW_QUERIES) {
      const signedIn = await get(`/sign-in?next=${raw}`, true);
      expect(signedIn.status, raw).toBe(303);
      expect(landsOn(signedIn.headers.get('location')).origin, raw).toBe(h.origin);
      const form = await get(`/sign-in?next=${raw}`, false);
      expect(form.status, raw).toBe(200);
      const kept = /name="next" value="([^"]*)"/.exec(await form.text())![1]!;
      expect(landsOn(kept).origin, raw).toBe(h.origin);
      expect(kept, raw).not.toMatch(/^\/[/\\]|[\t\n\r]/);
    }
    expect((await get('/sign-in?next=/%09/evil.example', true)).headers.get('location')).toBe('/');
  });
});

describe('back on the feed', () => {
  it('returns to the feed for hostile values and keeps a feed or search path', async () => {
    const read = (back: string) =>
      fetch(`${h.config.publicUrl}/feed/read-all`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin: h.origin, 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-token': csrf },
        body: new URLSearchParams({ back }).toString(),
      });
    const page = await (await get('/feed', true)).text();
    const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page)![1]!;
    for (const back of [...HOSTILE, '/feed\r\nSet-Cookie: stolen=1', '/feed/%0a', '/search?q=%0d']) {
      const res = await read(back);
      expect(res.status, JSON.stringify(back)).toBe(303);
      expect(res.headers.get('location'), JSON.stringify(back)).toBe('/feed');
    }
    const kept = await read('/search?q=disk#results');
    expect(kept.headers.get('location')).toBe('/search?q=disk');
  });
});
