import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** The dashboard's search without JavaScript: plain GET pages, as a browser without scripts reads them. */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let member: DashClient;

async function post(webhookToken: string, payload: unknown): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

/** The result titles of a page, in order, as text (marks removed). */
const titles = (html: string) => [...html.matchAll(/<h2 class="search-title">(.*?)<\/h2>/g)].map((m) => m[1]!.replace(/<\/?mark>/g, ''));

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
  for (let i = 1; i <= 30; i++) await post(seed.general.webhookToken, { title: `Nightly backup ${i}`, level: i % 10 === 0 ? 'ERROR' : 'INFO', message: `stored in frankfurt, run ${i}` });
  await post(seed.deploys.webhookToken, { title: 'Deploy <b>api</b>', message: 'frankfurt <script>alert(1)</script> cluster', actor: { name: 'Jane Frankfurt' } });
  await post(seed.secret.webhookToken, { title: 'Secret frankfurt key rotated', level: 'WARNING' });
  member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
});
afterAll(async () => {
  await h?.close();
});

describe('dashboard search (no JavaScript)', () => {
  it('puts a search box in the frame of every signed-in page', async () => {
    for (const path of ['/feed', '/channels', '/profile']) {
      const { html } = await member.get(path);
      expect(html).toMatch(/<form method="get" action="\/search" class="top-search" id="top-search" role="search"/);
      expect(html).toContain('<label for="top-search-q" class="visually-hidden">Search alerts</label>');
    }
  });

  it('shows the query syntax help before a search', async () => {
    const { res, html } = await member.get('/search');
    expect(res.status).toBe(200);
    expect(html).toContain('How to search');
    expect(html).toContain('<code>pay*</code>');
  });

  it('finds newest first with the words marked, escapes what the sender wrote, and keeps private channels private', async () => {
    const { res, html } = await member.get('/search?q=frankfurt');
    expect(res.status).toBe(200);
    const found = titles(html);
    expect(found[0]).toBe('Deploy &lt;b&gt;api&lt;/b&gt;');
    expect(found.slice(1, 4)).toEqual(['Nightly backup 30', 'Nightly backup 29', 'Nightly backup 28']);
    expect(found).toHaveLength(25);
    expect(html).not.toContain('Secret frankfurt');
    expect(html).toContain('<mark>frankfurt</mark> &lt;script&gt;alert(1)&lt;/script&gt; cluster');
    expect(html).toContain('by Jane <mark>Frankfurt</mark>');
    expect(html).not.toContain('<script>alert(1)');
    // The frame's box keeps the query.
    expect(html).toMatch(/id="top-search-q" name="q" value="frankfurt"/);
  });

  it('pages older results by cursor without gaps or duplicates', async () => {
    const first = await member.get('/search?q=backup');
    const next = /href="(\/search\?q=backup&amp;cursor=\d+)"/.exec(first.html);
    expect(next).not.toBeNull();
    const second = await member.get(next![1]!.replaceAll('&amp;', '&'));
    const all = [...titles(first.html), ...titles(second.html)];
    expect(all).toEqual(Array.from({ length: 30 }, (_, i) => `Nightly backup ${30 - i}`));
    expect(second.html).not.toContain('Older results');
    // htmx asks for the next cards alone.
    const fragment = await member.get(`${next![1]!.replaceAll('&amp;', '&')}&fragment=1`);
    expect(fragment.html).not.toContain('<html');
    expect(titles(fragment.html)).toHaveLength(5);
  });

  it('filters by level and channel, and says when nothing is found', async () => {
    expect(titles((await member.get('/search?q=backup&level=ERROR')).html)).toEqual(['Nightly backup 30', 'Nightly backup 20', 'Nightly backup 10']);
    expect(titles((await member.get('/search?q=frankfurt&channel=deploys')).html)).toEqual(['Deploy &lt;b&gt;api&lt;/b&gt;']);
    const none = await member.get('/search?q=frankfurt&channel=deploys&level=ERROR');
    expect(none.res.status).toBe(200);
    expect(none.html).toContain('Nothing found with these filters');
    expect(none.html).toContain('href="/search?q=frankfurt"');
  });

  it('answers a refused query, an unknown level or an invisible channel with a 4xx page', async () => {
    const long = await member.get(`/search?q=${'a'.repeat(300)}`);
    expect(long.res.status).toBe(400);
    expect(long.html).toContain('q must be at most 256 characters');
    expect((await member.get('/search?q=x&level=LOUD')).res.status).toBe(400);
    expect((await member.get('/search?q=x&channel=security')).res.status).toBe(404);
    expect((await member.get('/search?q=x&cursor=abc')).res.status).toBe(400);
  });

  it('sends a visitor without a session to sign in', async () => {
    const res = await h.app.request('/search?q=frankfurt', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/sign-in/);
  });

  it('survives hostile queries: never a 5xx, every refusal an HTML page, nothing typed becomes markup', async () => {
    const value = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('"', '*', '"unclosed', 'NEAR(a b)', 'title:x', '<script>x</script>', '\u0000', 'a'.repeat(257), 'ERROR', 'general', 'security', '-1', '99999999999999999999'));
    const param = fc.constantFrom('q', 'q', 'level', 'channel', 'cursor', 'fragment', '__proto__');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, value), { maxLength: 4 }), async (pairs) => {
        const qs = new URLSearchParams(pairs).toString();
        const { res, html } = await member.get(`/search?${qs}`);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(html).toMatch(/^<!doctype html>/i);
        expect(html).not.toContain('<script>x');
      }),
      { numRuns: 150, seed: 13 },
    );
  });
});
