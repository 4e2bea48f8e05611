import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { AppError } from '../../src/domain/errors.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeBase64, resolveAttachments, type ResolvedAttachment } from '../../src/media/attachments.js';
import { MAX_REQUEST_BYTES, parseMultipart } from '../../src/media/multipart.js';
import { createMediaFetcher } from '../../src/media/fetcher.js';
import { MAX_ATTACHMENTS } from '../../src/domain/media.js';
import type { MediaStore } from '../../src/media/store.js';
import * as fx from './fixtures.js';
import { expectAppError, listDir, tempStore } from './helpers.js';

const MiB = 1024 * 1024;
let store: MediaStore;
let cleanup: () => void;
let server: http.Server;
let base: string;
const fetcher = createMediaFetcher({ allowPrivate: true, timeoutMs: 2000 });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/cat.gif') res.writeHead(200).end(fx.gif());
    else if (path === '/slow.png') setTimeout(() => res.writeHead(200).end(fx.png(5)), 300);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  ({ store, cleanup } = tempStore());
});
afterEach(() => cleanup());

describe('resolveAttachments', () => {
  it('stores base64, data: URLs and downloads, in item order, followed by uploads', async () => {
    const batch = store.batch();
    const upload: ResolvedAttachment = { media: await batch.putBuffer(fx.wav()), name: 'beep.wav' };
    const out = await resolveAttachments(
      [
        { data: fx.png(1).toString('base64'), name: 'a.png' },
        { url: `${base}/cat.gif?token=x`, type: 'image' },
        { data: `data:image/jpeg;base64,${fx.jpeg().toString('base64')}` },
        { data: fx.oggOpus().toString('base64url'), type: 'audio', name: 'voice.ogg' },
      ],
      [upload],
      { batch, fetcher },
    );
    expect(out.map((a) => [a.media.mime, a.name])).toEqual([
      ['image/png', 'a.png'],
      ['image/gif', null], // never named after the source URL
      ['image/jpeg', null],
      ['audio/ogg', 'voice.ogg'],
      ['audio/wav', 'beep.wav'],
    ]);
    expect(out.every((a) => a.media.url.startsWith('http://media.test/media/'))).toBe(true);
    await batch.commit();
    expect(listDir(store.dir)).toHaveLength(5);
  });

  it(`refuses more than ${MAX_ATTACHMENTS} over items and uploads, before storing anything`, async () => {
    const batch = store.batch();
    const uploads: ResolvedAttachment[] = [];
    for (let i = 0; i < 4; i++) uploads.push({ media: await batch.putBuffer(fx.png(100 + i)), name: null });
    const items = Array.from({ length: 7 }, (_, i) => ({ data: fx.png(200 + i).toString('base64') }));
    await expectAppError(resolveAttachments(items, uploads, { batch, fetcher }), 'too-many-attachments', /11 attachments.*at most 10/);
    expect(listDir(store.dir)).toHaveLength(4);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
    // Exactly 10 is fine.
    const ok = store.batch();
    expect(await resolveAttachments(items.slice(0, 6), uploads, { batch: ok, fetcher })).toHaveLength(10);
  });

  it.each([
    ['not base64 characters', 'iVBOR*w0KGgo', /unexpected character/],
    ['impossible length', 'iVBORw0KG', /wrong length or padding/],
    ['bad padding', 'iVBO=w==', /unexpected character|padding/],
    ['empty', '   ', /empty/],
    ['data: URL without base64', 'data:image/png,%89PNG', /must be base64/],
  ])('invalid base64 (%s) → invalid-payload naming the field', async (_n, data, detail) => {
    const e = await expectAppError(
      resolveAttachments([{ data: fx.png().toString('base64') }, { data }], [], { batch: store.batch(), fetcher }),
      'invalid-payload',
      detail,
    );
    expect(e.detail).toMatch(/^attachments\.1\.data: /);
    expect(e.extensions.details).toEqual([expect.objectContaining({ path: ['attachments', 1, 'data'] })]);
  });

  it('accepts whitespace, missing padding and the URL-safe alphabet', () => {
    const b = Buffer.from([0xfb, 0xff, 0xfe, 0x01, 0x02]);
    expect(decodeBase64(b.toString('base64url'), 0).equals(b)).toBe(true);
    expect(decodeBase64(`${b.toString('base64').slice(0, 4)}\n ${b.toString('base64').slice(4)}`, 0).equals(b)).toBe(true);
  });

  it('needs exactly one of url and data, and a known type', async () => {
    const ctx = { batch: store.batch(), fetcher };
    await expectAppError(resolveAttachments([{ name: 'x' }], [], ctx), 'invalid-payload', /needs "url" or "data"/);
    await expectAppError(resolveAttachments([{ url: `${base}/cat.gif`, data: 'AAAA' }], [], ctx), 'invalid-payload', /not both/);
    await expectAppError(resolveAttachments([{ data: 'AAAA', type: 'document' as never }], [], ctx), 'invalid-payload', /"type" must be one of/);
  });

  it('keeps the type/size codes of the items', async () => {
    const ctx = () => ({ batch: store.batch(), fetcher });
    await expectAppError(resolveAttachments([{ data: fx.png().toString('base64'), type: 'video' }], [], ctx()), 'attachment-type-mismatch', /attachments\[0\]/);
    await expectAppError(resolveAttachments([{ data: fx.svg().toString('base64'), type: 'image' }], [], ctx()), 'unsupported-attachment-type', /SVG/);
    // Decoded size is known from the length: refused without decoding.
    const big = 'A'.repeat(Math.ceil((10 * MiB + 10) / 3) * 4);
    await expectAppError(resolveAttachments([{ data: big, type: 'image' }], [], ctx()), 'attachment-too-large', /attachments\[0\].*10 MiB/);
    await expectAppError(resolveAttachments([{ url: `${base}/missing.png` }], [], ctx()), 'attachment-fetch-failed', /attachments\[0\].*answered 404/);
  });

  it('the first failure cancels the other downloads; rollback leaves nothing', async () => {
    const batch = store.batch();
    const t0 = Date.now();
    await expectAppError(
      resolveAttachments([{ url: `${base}/slow.png` }, { data: fx.png(7).toString('base64') }, { url: 'http://127.0.0.1:1/' }], [], { batch, fetcher }),
      'attachment-fetch-failed',
      /attachments\[2\].*connection refused/,
    );
    expect(Date.now() - t0).toBeLessThan(280); // the slow download was aborted, not awaited
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });
});

/** A Buffer as a BlobPart (the DOM typings want an ArrayBuffer-backed view). */
const u8 = (b: Buffer) => new Uint8Array(b);

function formRequest(form: FormData, headers: Record<string, string> = {}): Request {
  return new Request('http://localhost/hooks/x', { method: 'POST', body: form, headers });
}

/** A multipart body from raw parts, sent as a stream that counts what was pulled. */
function streamingRequest(parts: (string | Buffer | { zeros: number })[], extraHeaders: Record<string, string> = {}, boundary = 'b0undary') {
  const counter = { pulled: 0 };
  const zeros = Buffer.alloc(64 * 1024);
  async function* gen(): AsyncGenerator<Uint8Array> {
    for (const p of parts) {
      if (typeof p === 'string' || Buffer.isBuffer(p)) {
        const b = typeof p === 'string' ? Buffer.from(p) : p;
        counter.pulled += b.length;
        yield b;
      } else {
        for (let left = p.zeros; left > 0; left -= zeros.length) {
          const n = Math.min(left, zeros.length);
          counter.pulled += n;
          yield zeros.subarray(0, n);
        }
      }
    }
  }
  const it = gen();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const r = await it.next();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
    async cancel() {
      await it.return(undefined);
    },
  }, { highWaterMark: 0 }); // pull only when the consumer reads
  const request = new Request('http://localhost/hooks/x', {
    method: 'POST',
    body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...extraHeaders },
    duplex: 'half',
  } as RequestInit);
  return { request, counter };
}

const filePart = (name: string, filename: string, boundary = 'b0undary') =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
const fieldPart = (name: string, value: string, boundary = 'b0undary') =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

describe('parseMultipart', () => {
  it('returns the payload text and the stored files in part order with their filenames', async () => {
    const form = new FormData();
    form.append('file1', new Blob([u8(fx.png(1))]), 'first.png');
    form.append('payload', JSON.stringify({ title: 'disk full' }));
    form.append('anything', new Blob([u8(fx.mp3())]), 'zweite Größe.mp3');
    form.append('other-field', 'ignored');
    const batch = store.batch();
    const res = await parseMultipart(formRequest(form), { batch });
    expect(JSON.parse(res.payloadText)).toEqual({ title: 'disk full' });
    expect(res.uploads.map((u) => [u.name, u.media.mime])).toEqual([
      ['first.png', 'image/png'],
      ['zweite Größe.mp3', 'audio/mpeg'],
    ]);
    await batch.commit();
  });

  it('accepts the payload as a file part (curl -F payload=@alert.json) and skips empty file inputs', async () => {
    const form = new FormData();
    form.append('payload', new Blob(['{"a":1}'], { type: 'application/json' }), 'alert.json');
    form.append('files', new Blob([]), '');
    form.append('files', new Blob([u8(fx.gif())]), 'x.gif');
    const res = await parseMultipart(formRequest(form), { batch: store.batch() });
    expect(res.payloadText).toBe('{"a":1}');
    expect(res.uploads.map((u) => u.name)).toEqual(['x.gif']);
  });

  it('a missing payload part is invalid-payload', async () => {
    const form = new FormData();
    form.append('file', new Blob([u8(fx.png())]), 'a.png');
    const batch = store.batch();
    await expectAppError(parseMultipart(formRequest(form), { batch }), 'invalid-payload', /no "payload" part/);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });

  it('a payload over the limit is payload-too-large', async () => {
    const form = new FormData();
    form.append('payload', 'x'.repeat(MiB + 1));
    await expectAppError(parseMultipart(formRequest(form), { batch: store.batch() }), 'payload-too-large', /"payload" part is larger than 1 MiB/);
    const f2 = new FormData();
    f2.append('payload', new Blob(['x'.repeat(2000)]), 'p.json');
    await expectAppError(parseMultipart(formRequest(f2), { batch: store.batch(), maxPayloadBytes: 1000 }), 'payload-too-large');
  });

  it('an SVG upload is refused, whatever its name and declared type', async () => {
    const form = new FormData();
    form.append('payload', '{}');
    form.append('file', new Blob([u8(fx.png())], { type: 'image/png' }), 'ok.png');
    form.append('file', new Blob([u8(fx.svgRenamedPng.bytes)], { type: 'image/png' }), fx.svgRenamedPng.name);
    const batch = store.batch();
    await expectAppError(parseMultipart(formRequest(form), { batch }), 'unsupported-attachment-type', /file "cat\.png": SVG/);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });

  it(`more than ${MAX_ATTACHMENTS} files → too-many-attachments`, async () => {
    const form = new FormData();
    form.append('payload', '{}');
    for (let i = 0; i < 11; i++) form.append('f', new Blob([u8(fx.png(i))]), `${i}.png`);
    const batch = store.batch();
    await expectAppError(parseMultipart(formRequest(form), { batch }), 'too-many-attachments', /at most 10/);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });

  it('a malformed multipart body is invalid-payload', async () => {
    const bad = (body: string, ct = 'multipart/form-data; boundary=zzz') =>
      parseMultipart(new Request('http://localhost/', { method: 'POST', body, headers: { 'content-type': ct } }), { batch: store.batch() });
    await expectAppError(bad('--zzz\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{}'), 'invalid-payload', /malformed multipart body/);
    await expectAppError(bad('garbage', 'multipart/form-data'), 'invalid-payload');
    await expectAppError(bad('{}', 'application/json'), 'invalid-payload', /multipart\/form-data/);
  });

  it('an oversized file part stops reading the request as soon as it passes the limit', async () => {
    const { request, counter } = streamingRequest([
      fieldPart('payload', '{}'),
      filePart('file', 'huge.png'),
      fx.png(),
      { zeros: 60 * 1000 * 1000 },
      '\r\n--b0undary--\r\n',
    ]);
    const batch = store.batch();
    await expectAppError(parseMultipart(request, { batch }), 'attachment-too-large', /file "huge\.png".*10 MiB/);
    expect(counter.pulled).toBeLessThan(12 * MiB);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });

  it(`the whole request is capped (MAX_REQUEST_BYTES = ${MAX_REQUEST_BYTES / MiB} MiB by default)`, async () => {
    expect(MAX_REQUEST_BYTES).toBe(110 * MiB);
    // Announced: refused before reading.
    const { request: withLength, counter: c1 } = streamingRequest([fieldPart('payload', '{}'), '--b0undary--\r\n'], {
      'content-length': String(MAX_REQUEST_BYTES + 1),
    });
    await expectAppError(parseMultipart(withLength, { batch: store.batch() }), 'payload-too-large', /110 MiB/);
    expect(c1.pulled).toBe(0);
    // Streamed: many files, each within its limit, together over the cap.
    const parts: (string | Buffer | { zeros: number })[] = [fieldPart('payload', '{}')];
    for (let i = 0; i < 5; i++) parts.push(filePart('f', `${i}.png`), fx.png(i), { zeros: 300 * 1024 }, '\r\n');
    parts.push('--b0undary--\r\n');
    const { request, counter } = streamingRequest(parts);
    const batch = store.batch();
    await expectAppError(parseMultipart(request, { batch, maxRequestBytes: MiB }), 'payload-too-large', /1 MiB/);
    expect(counter.pulled).toBeLessThan(MiB + 200 * 1024);
    await batch.rollback();
    expect(listDir(store.dir)).toEqual([]);
  });
});

describe('parseMultipart behind @hono/node-server', () => {
  it('a 60 MB upload is cut off past the limit and the client still gets the error answer', async () => {
    const app = new Hono();
    app.post('/hook', async (c) => {
      const batch = store.batch();
      try {
        const r = await parseMultipart(c.req.raw, { batch });
        await batch.commit();
        return c.json({ uploads: r.uploads.length });
      } catch (err) {
        await batch.rollback();
        return c.json({ code: (err as AppError).code }, 413);
      }
    });
    const srv = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server;
    await new Promise((r) => srv.once('listening', r));
    const port = (srv.address() as AddressInfo).port;
    let sent = 0;
    try {
      const answer = await new Promise<string>((resolve) => {
        const req = http.request(
          { port, host: '127.0.0.1', method: 'POST', path: '/hook', headers: { 'content-type': 'multipart/form-data; boundary=b0undary' } },
          (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve(`${res.statusCode} ${body}`));
          },
        );
        req.on('error', (e) => resolve(`error ${e.message}`));
        void (async () => {
          req.write(fieldPart('payload', '{}'));
          req.write(filePart('f', 'big.png'));
          req.write(fx.png());
          const z = Buffer.alloc(64 * 1024);
          while (sent < 60e6 && !req.destroyed) {
            sent += z.length;
            if (!req.write(z)) await new Promise((r) => (req.once('drain', r), req.once('close', r)));
          }
          if (!req.destroyed) req.end('\r\n--b0undary--\r\n');
        })();
      });
      expect(answer).toBe('413 {"code":"attachment-too-large"}');
      expect(sent).toBeLessThan(30 * MiB); // the server stopped reading: the client could not push the rest
      expect(listDir(store.dir)).toEqual([]);
    } finally {
      srv.closeAllConnections();
      srv.close();
    }
  });
});
