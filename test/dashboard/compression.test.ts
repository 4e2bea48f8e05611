import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** What a browser downloads: compressed feed and search pages and assets, a CSRF token masked afresh per response. */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let owner: DashClient;

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
  for (let i = 0; i < 10; i++) {
    const res = await fetch(`${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: `Build ${i} passed`, message: 'main is green' }),
    });
    expect(res.status).toBe(201);
  }
  owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
});
afterAll(async () => {
  await h?.close();
});

const cookie = () => [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
async function raw(path: string, acceptEncoding: string) {
  const res = await h.app.request(path, { headers: { cookie: cookie(), accept: 'text/html', 'accept-encoding': acceptEncoding } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

describe('dashboard compression', () => {
  it('sends the feed and search pages in brotli or gzip as the browser accepts, and plain otherwise', async () => {
    const br = await raw('/feed', 'gzip, deflate, br');
    expect(br.res.headers.get('content-encoding')).toBe('br');
    expect(br.res.headers.get('vary')).toMatch(/Accept-Encoding/);
    const html = zlib.brotliDecompressSync(br.body).toString();
    expect(html).toContain('Build 9 passed');
    expect(br.body.length).toBeLessThan(html.length / 3);
    // The security headers survive the re-encoding.
    expect(br.res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(br.res.headers.get('cache-control')).toBe('no-store');

    const gz = await raw('/search?q=build', 'gzip');
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toContain('<mark>Build</mark>');

    const plain = await raw('/feed', 'identity');
    expect(plain.res.headers.get('content-encoding')).toBeNull();
    expect(plain.body.toString()).toContain('Build 9 passed');
    expect((await raw('/feed', 'br;q=0, gzip;q=0')).res.headers.get('content-encoding')).toBeNull();
  });

  it('leaves pages that show secrets uncompressed (no BREACH target) and never touches the event stream', async () => {
    expect((await raw('/tokens', 'br')).res.headers.get('content-encoding')).toBeNull();
    expect((await raw(`/channels/${seed.general.slug}`, 'br')).res.headers.get('content-encoding')).toBeNull();
    const ctrl = new AbortController();
    const stream = await fetch(`${h.config.publicUrl}/feed/stream`, { headers: { cookie: cookie(), 'accept-encoding': 'br, gzip' }, signal: ctrl.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('content-encoding')).toBeNull();
    ctrl.abort();
  });

  it('serves assets compressed, cached for a year', async () => {
    const page = (await raw('/feed', 'identity')).body.toString();
    const htmx = /src="(\/assets\/htmx\.[0-9a-f]+\.js)"/.exec(page)![1]!;
    const plain = await raw(htmx, '');
    const br = await raw(htmx, 'br, gzip');
    const gz = await raw(htmx, 'gzip');
    expect(br.res.headers.get('content-encoding')).toBe('br');
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(zlib.gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(br.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('masks the CSRF token afresh in every response, and every masking is accepted', async () => {
    const tokenOf = (html: string) => /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;
    const a = tokenOf((await owner.get('/feed')).html);
    const b = tokenOf((await owner.get('/feed')).html);
    expect(a).not.toBe(b);
    const alert = /data-alert-id="(alt_[^"]+)"/.exec((await owner.get('/feed')).html)![1]!;
    for (const token of [a, b]) {
      const res = await owner.post(`/feed/read/${alert}`, { read: '1' }, { csrf: token });
      expect(res.res.status).toBe(303);
    }
    // A token of another session, or a tampered one, is refused.
    // Flip one character well inside the pad: its six bits all count, so the
    // tampered token always differs (changing the tail could leave it equal).
    const tampered = `${a.slice(0, 20)}${a[20] === 'A' ? 'B' : 'A'}${a.slice(21)}`;
    expect(tampered).not.toBe(a);
    expect((await owner.post(`/feed/read/${alert}`, { read: '1' }, { csrf: tampered })).res.status).toBe(403);
    expect((await owner.post(`/feed/read/${alert}`, { read: '1' }, { csrf: 'x'.repeat(86) })).res.status).toBe(403);
  });
});
