import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mp3, mp4, png, svg, wav } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, testEngine, type Harness, closeServer, listen, seedWorkspace } from '../helpers/harness.js';

let h: Harness;
let origin: http.Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined as never; // closed once: the shared service of 'refusals' leaves h alone
  await closeServer(origin);
  origin = undefined;
});

const HOUR = 60 * 60 * 1000;
const mediaFiles = (hh = h) => (fs.existsSync(path.join(hh.dir, 'media')) ? fs.readdirSync(path.join(hh.dir, 'media')).filter((f) => !f.startsWith('.')).sort() : []);
const alertCount = (hh = h) => hh.count('alerts');

/**
 * No file of a refused request is kept. SQLite deletes them at once. PostgreSQL lists them for the
 * orphan sweep instead (nodes share MEDIA_DIR: another may be committing the same bytes; README
 * "Media on several nodes"), which deletes them once the grace period is over.
 */
async function expectNoFileKept(hh = h) {
  if (testEngine() === 'sqlite') {
    expect(mediaFiles(hh)).toEqual([]);
    return;
  }
  const listed = (await hh.query<{ key: string }>('SELECT media_key AS key FROM media_orphans')).map((r) => r.key).sort();
  expect(listed).toEqual(mediaFiles(hh));
  await hh.exec('UPDATE media_orphans SET orphaned_at = orphaned_at - ?', [hh.config.mediaOrphanGraceMs + HOUR]);
  expect((await hh.services.maintenance()).orphanedMedia).toBe(listed.length);
  expect(mediaFiles(hh)).toEqual([]);
}

async function serveFiles(files: Record<string, { body: Buffer; type: string }>) {
  origin = http.createServer((req, res) => {
    const f = files[req.url ?? ''];
    if (!f) return res.writeHead(404).end('nope');
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.body.length }).end(f.body);
  });
  await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
}

function multipart(payload: object, files: { name: string; filename: string; type: string; body: Buffer }[]) {
  const form = new FormData();
  form.append('payload', JSON.stringify(payload));
  for (const f of files) form.append(f.name, new Blob([new Uint8Array(f.body)], { type: f.type }), f.filename);
  return form;
}

/** A refused request of the table below: multipart files, or a JSON payload's attachments. */
interface Refused {
  files?: Parameters<typeof multipart>[1];
  json?: { attachments: object[] };
}

describe('webhook attachments', () => {
  it('takes a multipart upload, re-hosts it and lists it on the alert', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const body = multipart({ title: 'Screenshot', attachments: [] }, [{ name: 'file', filename: 'shot.png', type: 'image/png', body: png() }]);
    const res = await h.app.request(`/api/webhook/${seed.general.webhookToken}`, { method: 'POST', body });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert.attachments).toEqual([
      { url: expect.stringMatching(/^http:\/\/alertbridge\.test\/media\/[0-9a-f]{64}\.png$/), mime: 'image/png', type: 'image', name: 'shot.png', size: png().length },
    ]);
    const served = await h.app.request(new URL(alert.attachments[0]!.url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png())).toBe(true);
  });

  it('a payload part that is not JSON is a malformed-json 400 naming the part, and its uploaded file is not kept', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const form = new FormData();
    form.append('payload', '{"title": ');
    form.append('file', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'shot.png');
    const res = await h.app.request(`/api/webhook/${seed.general.webhookToken}`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    const body = await bodyOf.problem(res);
    expect(body.type).toBe('http://alertbridge.test/problems/malformed-json');
    expect(body.detail).toMatch(/^the payload part is not valid JSON: /);
    expect(body.detail).not.toMatch(/body is not valid JSON/);
    await expectNoFileKept();
  });

  it('takes base64 data and URLs, never revealing the source URL, storing the same bytes once', async () => {
    const base = await serveFiles({
      '/secret/path/chart.png?sig=abc': { body: png(), type: 'image/png' },
      '/clip.mp4': { body: mp4(), type: 'video/mp4' },
    });
    h = await startHarness({ env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, {
      json: {
        title: 'media',
        attachments: [
          { url: `${base}/secret/path/chart.png?sig=abc`, name: 'Chart' },
          { data: png().toString('base64'), type: 'image' },
          { url: `${base}/clip.mp4`, type: 'video' },
          { data: `data:audio/mpeg;base64,${mp3().toString('base64')}`, type: 'audio', name: 'alarm' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert.attachments.map((a) => [a.type, a.mime, a.name])).toEqual([
      ['image', 'image/png', 'Chart'],
      ['image', 'image/png', null],
      ['video', 'video/mp4', null],
      ['audio', 'audio/mpeg', 'alarm'],
    ]);
    expect(alert.attachments[0]!.url).toBe(alert.attachments[1]!.url); // content-addressed
    expect(JSON.stringify(alert)).not.toContain('127.0.0.1');
    expect(JSON.stringify(alert)).not.toContain('sig=abc');
    expect(mediaFiles()).toHaveLength(3);
  });

  describe('refusals', () => {
    // One service for the table: each refusal stores nothing, so each row starts where the last left.
    let shared: { h: Harness; seed: Awaited<ReturnType<typeof seedWorkspace>> };
    beforeAll(async () => {
      const sh = await startHarness();
      shared = { h: sh, seed: await seedWorkspace(sh.services) };
    });
    afterAll(() => shared?.h.close());

    it.each([
      ['an SVG upload', () => ({ files: [{ name: 'file', filename: 'x.svg', type: 'image/svg+xml', body: svg() }] }), 400, 'unsupported-attachment-type'],
      ['an SVG disguised as PNG', () => ({ files: [{ name: 'file', filename: 'x.png', type: 'image/png', body: svg() }] }), 400, 'unsupported-attachment-type'],
      ['a declared type that contradicts the bytes', () => ({ json: { attachments: [{ data: wav().toString('base64'), type: 'image' }] } }), 400, 'attachment-type-mismatch'],
      ['invalid base64', () => ({ json: { attachments: [{ data: '!!!not base64!!!' }] } }), 400, 'invalid-payload'],
      ['too many attachments', () => ({ json: { attachments: Array.from({ length: 11 }, () => ({ data: png().toString('base64') })) } }), 400, 'invalid-payload'],
      ['an image over 10 MB', () => ({ files: [{ name: 'file', filename: 'big.png', type: 'image/png', body: Buffer.concat([png(), Buffer.alloc(10 * 1024 * 1024 + 10)]) }] }), 413, 'attachment-too-large'],
    ])('refuses %s with a problem document and stores nothing', async (_name, make, status, type) => {
      const { h, seed } = shared;
      const spec: Refused = make();
      // A valid file goes first, so a half-done request would leave it behind.
      const res = spec.files
        ? await h.app.request(`/api/webhook/${seed.general.webhookToken}`, {
            method: 'POST',
            body: multipart({ title: 't' }, [{ name: 'first', filename: 'ok.mp3', type: 'audio/mpeg', body: mp3() }, ...spec.files]),
          })
        : await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', ...spec.json, attachments: [{ data: mp3().toString('base64') }, ...(spec.json?.attachments ?? [])] } });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect((await bodyOf.problem(res)).type).toBe(`http://alertbridge.test/problems/${type}`);
      expect(await alertCount(h)).toBe(0);
      await expectNoFileKept(h);
    });
  });

  it('a URL that cannot be fetched is a 422 with the reason; a private address is refused by default', async () => {
    const base = await serveFiles({});
    h = await startHarness({ env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', attachments: [{ url: `${base}/missing.png` }] } });
    expect(res.status).toBe(422);
    const body = await bodyOf.problem(res);
    expect(body.type).toBe('http://alertbridge.test/problems/attachment-fetch-failed');
    expect(body.detail).toMatch(/404/);
    await h.close();

    h = await startHarness();
    const seed2 = await seedWorkspace(h.services);
    let connections = 0;
    origin!.on('connection', () => connections++);
    const guarded = await h.call('POST', `/api/webhook/${seed2.general.webhookToken}`, { json: { title: 't', attachments: [{ url: `${base}/x.png` }] } });
    expect(guarded.status).toBe(422);
    expect((await bodyOf.problem(guarded)).detail).toMatch(/loopback|private|refused|not allowed/i);
    expect(connections).toBe(0);
    expect(await alertCount()).toBe(0);
  });

  it('streams a too-large upload over real HTTP and cuts it off early', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const server = await listen(h.app.fetch);
    try {
      const boundary = 'xyzBOUNDARY';
      const total = 40 * 1024 * 1024; // a 40 MB "image": the limit is 10 MiB
      const { port } = new URL(server.url);
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/webhook/${seed.general.webhookToken}`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
      });
      // The response may arrive while the body is still being written: collect it whole.
      let responded = false;
      let closed = false;
      const response = new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
        req.on('response', (res) => {
          responded = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('close', () => {
          closed = true;
          if (!responded) reject(new Error('the connection closed without a response'));
        });
      });
      response.catch(() => {}); // awaited below; a write error must not leave it unhandled meanwhile
      req.on('error', () => {}); // EPIPE/ECONNRESET once the server stops reading: the response is what counts

      const stop = () => responded || closed;
      let sent = 0;
      const write = async (chunk: Buffer) => {
        sent += chunk.length;
        if (req.write(chunk)) return;
        // Back-pressure: wait for the socket to drain, or for the server to answer or hang up.
        await new Promise<void>((resolve) => {
          const done = () => {
            clearInterval(poll);
            req.off('drain', done);
            resolve();
          };
          const poll = setInterval(() => stop() && done(), 5);
          req.once('drain', done);
        });
      };
      await write(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{"title":"big"}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
      );
      await write(png());
      while (!stop() && sent < total) await write(Buffer.alloc(256 * 1024));

      // A response is required (not just "the upload failed somehow").
      const res = await response;
      req.destroy();
      expect(res.status).toBe(413);
      expect(res.type).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(res.body).type).toBe('http://alertbridge.test/problems/attachment-too-large');
      // The server answered long before the whole 40 MB was sent.
      expect(sent).toBeLessThan(total / 2);
      expect(await alertCount()).toBe(0);
      await expectNoFileKept();
    } finally {
      await server.close();
    }
  });
});
