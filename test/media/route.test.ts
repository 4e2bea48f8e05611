import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaRoutes, parseRange } from '../../src/http/routes/media.js';
import type { MediaStore } from '../../src/media/store.js';
import type { StoredMedia } from '../../src/domain/media.js';
import * as fx from './fixtures.js';
import { tempStore } from './helpers.js';
import { bodyOf } from '../helpers/bodies.js';

let store: MediaStore;
let cleanup: () => void;
let app: Hono;
let media: StoredMedia;
let bytes: Buffer;

beforeEach(async () => {
  ({ store, cleanup } = tempStore('http://localhost:3000/media'));
  app = new Hono();
  app.route('/media', createMediaRoutes(store, 'http://localhost:3000'));
  bytes = fx.mp4();
  media = await store.putBuffer(bytes);
});
afterEach(() => cleanup());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => app.request(path, { method, headers });

describe('GET /media/:key', () => {
  it('serves the bytes with type, nosniff, immutable caching, ETag and inline disposition', async () => {
    const res = await get(`/media/${media.key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('etag')).toBe(`"${media.sha256}"`);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('content-disposition')).toMatch(/^inline/);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each(fx.SUPPORTED)('serves $name as $mime', async ({ bytes: make, mime }) => {
    const m = await store.putBuffer(make());
    const res = await get(`/media/${m.key}`);
    expect(res.headers.get('content-type')).toBe(mime);
    expect(Buffer.from(await res.arrayBuffer()).equals(make())).toBe(true);
  });

  it('streams a large file in full', async () => {
    const big = Buffer.concat([fx.png(), Buffer.alloc(3 * 1024 * 1024 + 17, 7)]);
    const m = await store.putBuffer(big);
    const res = await get(`/media/${m.key}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('If-None-Match with the ETag → 304 without a body', async () => {
    for (const inm of [`"${media.sha256}"`, `W/"${media.sha256}"`, `"other", "${media.sha256}"`, '*']) {
      const res = await get(`/media/${media.key}`, { 'if-none-match': inm });
      expect(res.status, inm).toBe(304);
      expect(res.headers.get('etag')).toBe(`"${media.sha256}"`);
      expect(await res.text()).toBe('');
    }
    expect((await get(`/media/${media.key}`, { 'if-none-match': '"nope"' })).status).toBe(200);
  });

  it('Range → 206 with Content-Range and just those bytes', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-9', 0, 9],
      ['bytes=10-', 10, bytes.length - 1],
      ['bytes=-5', bytes.length - 5, bytes.length - 1],
      [`bytes=5-${bytes.length + 100}`, 5, bytes.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(`/media/${media.key}`, { range });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(res.headers.get('content-length')).toBe(String(end - start + 1));
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
    }
  });

  it('an unsatisfiable Range → 416 with Content-Range: bytes */size', async () => {
    for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 10}-${bytes.length + 20}`, 'bytes=-0']) {
      const res = await get(`/media/${media.key}`, { range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    }
  });

  it('ignores multi-range, other units and If-Range with a stale validator', async () => {
    const variants: Record<string, string>[] = [{ range: 'bytes=0-1,4-5' }, { range: 'items=0-1' }, { range: 'bytes=0-1', 'if-range': '"stale"' }];
    for (const headers of variants) {
      const res = await get(`/media/${media.key}`, headers);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect((await get(`/media/${media.key}`, { range: 'bytes=0-1', 'if-range': `"${media.sha256}"` })).status).toBe(206);
  });

  it('HEAD answers the headers without a body', async () => {
    const res = await get(`/media/${media.key}`, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('etag')).toBe(`"${media.sha256}"`);
    expect(await res.text()).toBe('');
    const ranged = await get(`/media/${media.key}`, { range: 'bytes=0-3' }, 'HEAD');
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 0-3/${bytes.length}`);
  });

  it.each([
    ['unknown key', `/media/${'0'.repeat(64)}.png`],
    ['malformed key', '/media/not-a-key.png'],
    ['upper-case key', `/media/${'A'.repeat(64)}.png`],
    ['encoded traversal', '/media/..%2F..%2Fetc%2Fpasswd'],
    ['encoded traversal to a real file', `/media/..%2F${'0'.repeat(64)}.png`],
    ['nested path', `/media/x/${'0'.repeat(64)}.png`],
    ['temp-looking name', '/media/.tmp-1-abc'],
    ['unsupported extension', `/media/${'0'.repeat(64)}.svg`],
  ])('404 problem for %s', async (_name, path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await bodyOf.problem(res);
    expect(body).toMatchObject({ status: 404, type: 'http://localhost:3000/problems/not-found', detail: 'media not found' });
  });
});

it('a dot-dot segment never escapes the media directory', async () => {
  for (const path of ['/media/../package.json', '/media/%2e%2e/package.json', '/media/..%5cpackage.json']) {
    const res = await get(path);
    expect(res.status, path).toBe(404);
    expect(await res.text()).not.toContain('alertbridge');
  }
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-0', 10, { start: 0, end: 0 }],
    ['bytes=9-', 10, { start: 9, end: 9 }],
    ['bytes=-20', 10, { start: 0, end: 9 }],
    ['bytes=10-', 10, 'unsatisfiable'],
    ['bytes=-0', 10, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=5-2', 10, null],
    ['bytes=-', 10, null],
    ['bytes=a-b', 10, null],
    ['bytes=0-1, 3-4', 10, null],
  ] as const)('%s of %d bytes → %j', (h, size, expected) => {
    expect(parseRange(h, size)).toEqual(expected);
  });
});
