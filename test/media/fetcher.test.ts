import dns, { type LookupAddress } from 'node:dns';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMediaFetcher, type LookupAll } from '../../src/media/fetcher.js';
import { refusedAddressReason } from '../../src/lib/ssrf.js';
import type { MediaStore } from '../../src/media/store.js';
import * as fx from './fixtures.js';
import { expectAppError, listDir, tempStore } from './helpers.js';
import { eventually } from '../helpers/poll.js';

const MiB = 1024 * 1024;

interface TestServer {
  port: number;
  connections: number;
  hosts: string[];
  remoteAddresses: string[];
  close(): Promise<void>;
}

async function startServer(host: string, handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    state.hosts.push(req.headers.host ?? '');
    handler(req, res);
  });
  const state: TestServer = {
    port: 0,
    connections: 0,
    hosts: [],
    remoteAddresses: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    state.connections++;
    state.remoteAddresses.push(socket.localAddress ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

/** What the big-body routes managed to send before the client hung up. */
const sent = { bytes: 0, finished: false, closedEarly: false };

function origin(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = url.pathname;
  if (p === '/ok.png' || p === '/secret') {
    const b = fx.png(1);
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': b.length }).end(b);
  } else if (p === '/ok.webm') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fx.webm());
  } else if (p === '/svg-as-png') {
    res.writeHead(200, { 'content-type': 'image/png' }).end(fx.svg());
  } else if (p === '/404') {
    res.writeHead(404).end('nope');
  } else if (p === '/500') {
    res.writeHead(500).end();
  } else if (p.startsWith('/redirect/')) {
    const n = Number(p.split('/')[2]);
    res.writeHead(302, { location: n <= 1 ? '/ok.png' : `/redirect/${n - 1}` }).end();
  } else if (p === '/redirect-relative') {
    res.writeHead(301, { location: 'ok.png' }).end();
  } else if (p === '/redirect-to') {
    res.writeHead(307, { location: url.searchParams.get('to')! }).end();
  } else if (p === '/redirect-no-location') {
    res.writeHead(302).end();
  } else if (p === '/hang') {
    // never answers
  } else if (p === '/stall-body') {
    res.writeHead(200, { 'content-length': 1000 });
    res.write(fx.png().subarray(0, 20));
  } else if (p === '/huge-length') {
    // Announces 60 MB, sends a PNG head and then trickles: must be refused without reading on.
    res.writeHead(200, { 'content-length': 60 * 1000 * 1000 });
    res.write(fx.png());
  } else if (p === '/image-11mib-length') {
    res.writeHead(200, { 'content-length': 11 * MiB });
    res.write(Buffer.concat([fx.png(), Buffer.alloc(128 * 1024)]));
  } else if (p === '/chunked-big') {
    void streamBig(res, 30 * MiB);
  } else {
    res.writeHead(404).end();
  }
}

async function streamBig(res: http.ServerResponse, total: number): Promise<void> {
  sent.bytes = 0;
  sent.finished = false;
  sent.closedEarly = false;
  res.on('close', () => {
    if (!res.writableFinished) sent.closedEarly = true;
  });
  res.writeHead(200, { 'content-type': 'image/png' }); // no length: chunked
  const chunk = Buffer.alloc(64 * 1024);
  res.write(fx.png());
  while (sent.bytes < total && !res.destroyed) {
    sent.bytes += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((r) => {
        res.once('drain', r);
        res.once('close', r);
      });
    }
  }
  if (!res.destroyed) {
    res.end();
    sent.finished = true;
  }
}

let srv: TestServer; // 127.0.0.1: the private origin used with allowPrivate
let trap: TestServer; // listens on :: (all local addresses): every refused URL points at it
let pub: TestServer; // 127.0.0.2: stands in for a public host in guarded tests
let store: MediaStore;
let cleanup: () => void;

// Count every TCP client socket and every undici connect attempt in this process.
const attempts = { net: 0, undici: 0 };
const onNet = () => attempts.net++;
const onUndici = () => attempts.undici++;

beforeAll(async () => {
  srv = await startServer('127.0.0.1', origin);
  trap = await startServer('::', (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(fx.png(99)));
  pub = await startServer('127.0.0.2', origin);
  diagnostics.subscribe('net.client.socket', onNet);
  diagnostics.subscribe('undici:client:beforeConnect', onUndici);
});
afterAll(async () => {
  diagnostics.unsubscribe('net.client.socket', onNet);
  diagnostics.unsubscribe('undici:client:beforeConnect', onUndici);
  await Promise.all([srv.close(), trap.close(), pub.close()]);
});
beforeEach(() => {
  ({ store, cleanup } = tempStore());
});
afterEach(() => cleanup());

const open = (o: Partial<Parameters<typeof createMediaFetcher>[0]> = {}) =>
  createMediaFetcher({ allowPrivate: true, timeoutMs: 2000, ...o });

describe('fetcher against a local server (allowPrivate: true)', () => {
  const base = () => `http://127.0.0.1:${srv.port}`;

  it('downloads into the batch, typed from the bytes, with our own URL', async () => {
    const before = { ...attempts };
    const batch = store.batch();
    const m = await open().fetchInto(`${base()}/ok.png?sig=abc`, batch);
    expect(m).toMatchObject({ mime: 'image/png', kind: 'image', size: fx.png(1).length, created: true });
    expect(m.url).toBe(`http://media.test/media/${m.key}`);
    expect(m.url).not.toContain('127.0.0.1');
    expect(listDir(store.dir)).toEqual([m.key]);
    // The connection counters used by the SSRF tests do see real connections.
    expect(attempts.net).toBeGreaterThan(before.net);
    expect(attempts.undici).toBeGreaterThan(before.undici);
    expect(await batch.rollback()).toEqual([m.key]);
  });

  it('decides by bytes, not by Content-Type', async () => {
    const f = open();
    expect((await f.fetchInto(`${base()}/ok.webm`, store.batch())).mime).toBe('video/webm');
    await expectAppError(f.fetchInto(`${base()}/svg-as-png`, store.batch()), 'unsupported-attachment-type', /SVG/);
    await expectAppError(f.fetchInto(`${base()}/ok.png`, store.batch(), { declaredKind: 'audio' }), 'attachment-type-mismatch');
  });

  it('a non-2xx answer fails with the status, and without the query string', async () => {
    const e = await expectAppError(open().fetchInto(`${base()}/404?token=s3cr3t`, store.batch()), 'attachment-fetch-failed', /answered 404/);
    expect(e.detail).toContain(`127.0.0.1:${srv.port}/404`);
    expect(e.detail).not.toContain('s3cr3t');
    await expectAppError(open().fetchInto(`${base()}/500`, store.batch()), 'attachment-fetch-failed', /answered 500/);
  });

  it('follows 3 redirects, refuses the 4th', async () => {
    const f = open();
    expect((await f.fetchInto(`${base()}/redirect/3`, store.batch())).mime).toBe('image/png');
    await expectAppError(f.fetchInto(`${base()}/redirect/4`, store.batch()), 'attachment-fetch-failed', /more than 3 redirects/);
    expect((await f.fetchInto(`${base()}/redirect-relative`, store.batch())).kind).toBe('image');
    await expectAppError(f.fetchInto(`${base()}/redirect-no-location`, store.batch()), 'attachment-fetch-failed', /without a Location/);
    await expectAppError(open({ maxRedirects: 1 }).fetchInto(`${base()}/redirect/2`, store.batch()), 'attachment-fetch-failed', /more than 1 redirects/);
  });

  it('times out a server that never answers', async () => {
    const t0 = Date.now();
    await expectAppError(open({ timeoutMs: 300 }).fetchInto(`${base()}/hang`, store.batch()), 'attachment-fetch-failed', /timed out after 300 ms/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('times out a body that stalls, and leaves no file', async () => {
    await expectAppError(open({ timeoutMs: 300 }).fetchInto(`${base()}/stall-body`, store.batch()), 'attachment-fetch-failed', /timed out/);
    expect(listDir(store.dir)).toEqual([]);
  });

  it('a Content-Length over the limit is refused before reading the body', async () => {
    const t0 = Date.now();
    await expectAppError(open().fetchInto(`${base()}/huge-length`, store.batch()), 'attachment-too-large', /50 MiB/);
    expect(Date.now() - t0).toBeLessThan(1000);
    await expectAppError(
      open().fetchInto(`${base()}/huge-length`, store.batch(), { declaredKind: 'image' }),
      'attachment-too-large',
      /10 MiB limit for images/,
    );
    // No declared kind: refused as soon as the head says "image".
    await expectAppError(open().fetchInto(`${base()}/image-11mib-length`, store.batch()), 'attachment-too-large', /10 MiB/);
    expect(listDir(store.dir)).toEqual([]);
  });

  it('an oversized chunked body is cut off while streaming', async () => {
    await expectAppError(open().fetchInto(`${base()}/chunked-big`, store.batch(), { label: 'attachments[0]' }), 'attachment-too-large', /attachments\[0\].*10 MiB/);
    await eventually(() => sent.closedEarly, 'the server to see its response cut off', { seen: () => sent });
    expect(sent.finished).toBe(false);
    expect(sent.bytes).toBeLessThan(20 * MiB); // the server was stopped long before its 30 MiB
    expect(listDir(store.dir)).toEqual([]);
  });

  it('a refused connection is reported clearly', async () => {
    const dead = await startServer('127.0.0.1', () => {});
    const port = dead.port;
    await dead.close();
    await expectAppError(open().fetchInto(`http://127.0.0.1:${port}/x.png`, store.batch()), 'attachment-fetch-failed', /connection refused/);
  });

  it('allowPrivate lifts only the address check', async () => {
    await expectAppError(open().fetchInto(`ftp://127.0.0.1:${srv.port}/x`, store.batch()), 'attachment-fetch-failed', /scheme ftp/);
    await expectAppError(open().fetchInto(`http://a:b@127.0.0.1:${srv.port}/ok.png`, store.batch()), 'attachment-fetch-failed', /credentials/);
    await expectAppError(open().fetchInto('not a url', store.batch()), 'attachment-fetch-failed', /not a valid absolute URL/);
  });
});

describe('SSRF guard (allowPrivate: false)', () => {
  const lookups: string[] = [];
  /** Maps test names; anything else goes to the real resolver (for "localhost"). */
  const lookup: LookupAll = (hostname, _opts, cb) => {
    lookups.push(hostname);
    const table: Record<string, LookupAddress[]> = {
      'cdn.example.test': [{ address: '10.0.0.1', family: 4 }],
      'multi.example.test': [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      'v6only.example.test': [{ address: '::1', family: 6 }],
      'allowed.test': [{ address: '127.0.0.2', family: 4 }],
      'internal.test': [{ address: '127.0.0.1', family: 4 }],
    };
    const hit = table[hostname];
    if (hit) return process.nextTick(cb, null, hit);
    dns.lookup(hostname, { all: true }, cb);
  };
  /** Production policy, except that 127.0.0.2 counts as public (a stand-in for the internet). */
  const addressPolicy = (ip: string) => (ip === '127.0.0.2' ? null : refusedAddressReason(ip));
  const guarded = () => createMediaFetcher({ allowPrivate: false, timeoutMs: 2000, lookup, addressPolicy });
  const strict = () => createMediaFetcher({ allowPrivate: false, timeoutMs: 2000, lookup });

  beforeEach(() => {
    lookups.length = 0;
  });

  const P = () => trap.port;
  const table: [string, (port: number) => string, RegExp][] = [
    ['127.0.0.1', (p) => `http://127.0.0.1:${p}/x.png`, /address 127\.0\.0\.1 is loopback/],
    ['127.1 (short form)', (p) => `http://127.1:${p}/x.png`, /127\.0\.0\.1 is loopback/],
    ['localhost', (p) => `http://localhost:${p}/x.png`, /localhost resolves to an address that is loopback/],
    ['10.1.2.3', (p) => `http://10.1.2.3:${p}/`, /10\.1\.2\.3 is private/],
    ['172.16.0.1', (p) => `http://172.16.0.1:${p}/`, /is private/],
    ['192.168.1.1', (p) => `http://192.168.1.1:${p}/`, /is private/],
    ['169.254.169.254 (metadata)', (p) => `http://169.254.169.254:${p}/latest/meta-data/`, /cloud metadata/],
    ['100.64.0.1 (CGNAT)', (p) => `http://100.64.0.1:${p}/`, /carrier-grade NAT/],
    ['0.0.0.0', (p) => `http://0.0.0.0:${p}/`, /unspecified/],
    ['[::]', (p) => `http://[::]:${p}/`, /unspecified/],
    ['[::1]', (p) => `http://[::1]:${p}/`, /::1 is loopback/],
    ['[::ffff:127.0.0.1]', (p) => `http://[::ffff:127.0.0.1]:${p}/`, /IPv4-mapped form of 127\.0\.0\.1/],
    ['[::ffff:169.254.169.254]', (p) => `http://[::ffff:169.254.169.254]:${p}/`, /IPv4-mapped.*metadata/],
    ['[fc00::1]', (p) => `http://[fc00::1]:${p}/`, /unique local/],
    ['[fe80::1]', (p) => `http://[fe80::1]:${p}/`, /link-local/],
    ['[64:ff9b::7f00:1] (NAT64)', (p) => `http://[64:ff9b::7f00:1]:${p}/`, /NAT64 form of 127\.0\.0\.1/],
    ['[2002:7f00:1::] (6to4)', (p) => `http://[2002:7f00:1::]:${p}/`, /6to4 form of 127\.0\.0\.1/],
    ['decimal 2130706433', (p) => `http://2130706433:${p}/`, /127\.0\.0\.1 is loopback/],
    ['octal 0177.0.0.1', (p) => `http://0177.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
    ['hex 0x7f.0.0.1', (p) => `http://0x7f.0.0.1:${p}/`, /127\.0\.0\.1 is loopback/],
    ['hex 0x7f.1', (p) => `http://0x7f.1:${p}/`, /127\.0\.0\.1 is loopback/],
    ['name resolving to 10.0.0.1', (p) => `http://cdn.example.test:${p}/a.png`, /cdn\.example\.test resolves to an address that is private/],
    ['name with one private address among several', (p) => `http://multi.example.test:${p}/a.png`, /resolves to an address that is loopback/],
    ['name resolving to ::1', (p) => `http://v6only.example.test:${p}/a.png`, /v6only\.example\.test resolves to an address that is/],
    ['ftp://', (p) => `ftp://127.0.0.1:${p}/x.png`, /scheme ftp is not allowed/],
    ['file://', () => 'file:///etc/passwd', /scheme file is not allowed/],
    ['user:pass@', (p) => `http://user:pass@127.0.0.1:${p}/x.png`, /credentials are not allowed/],
    ['user:pass@ on a public host', () => `http://user:pass@allowed.test:${pub.port}/ok.png`, /credentials/],
  ];

  it.each(table)('refuses %s without connecting', async (_name, makeUrl, reason) => {
    const before = { ...attempts };
    const trapBefore = trap.connections;
    const pubBefore = pub.connections;
    const e = await expectAppError(guarded().fetchInto(makeUrl(P()), store.batch()), 'attachment-fetch-failed', reason);
    expect(e.detail).not.toContain('user:pass'); // credentials never echoed
    expect(trap.connections).toBe(trapBefore);
    expect(pub.connections).toBe(pubBefore);
    expect(attempts).toEqual(before); // no socket was even created
    expect(listDir(store.dir)).toEqual([]);
  });

  it('control: without the guard, the same loopback URLs do reach the trap server', async () => {
    const f = createMediaFetcher({ allowPrivate: true, timeoutMs: 2000, lookup });
    for (const url of [
      `http://127.0.0.1:${P()}/x.png`,
      `http://localhost:${P()}/x.png`,
      `http://0.0.0.0:${P()}/x.png`,
      `http://[::1]:${P()}/x.png`,
      `http://2130706433:${P()}/x.png`,
      `http://0x7f.1:${P()}/x.png`,
      `http://internal.test:${P()}/x.png`,
    ]) {
      const before = trap.connections;
      expect((await f.fetchInto(url, store.batch())).mime, url).toBe('image/png');
      expect(trap.connections, url).toBe(before + 1);
    }
  });

  it('the production policy (no override) refuses loopback too', async () => {
    const before = trap.connections;
    await expectAppError(strict().fetchInto(`http://127.0.0.1:${P()}/`, store.batch()), 'attachment-fetch-failed', /loopback/);
    await expectAppError(strict().fetchInto(`http://127.0.0.2:${pub.port}/ok.png`, store.batch()), 'attachment-fetch-failed', /loopback/);
    expect(trap.connections).toBe(before);
  });

  it('an allowed host is fetched through the checked address, keeping its name', async () => {
    const before = pub.connections;
    const m = await guarded().fetchInto(`http://allowed.test:${pub.port}/ok.png`, store.batch());
    expect(m.mime).toBe('image/png');
    expect(pub.connections).toBe(before + 1);
    expect(pub.hosts.at(-1)).toBe(`allowed.test:${pub.port}`);
    expect(lookups).toEqual(['allowed.test']);
  });

  it('redirects from an allowed host to a forbidden one are refused before connecting', async () => {
    for (const target of [`http://127.0.0.1:${P()}/secret`, `http://internal.test:${P()}/secret`, `http://[::1]:${P()}/secret`, `http://2130706433:${P()}/secret`]) {
      const trapBefore = trap.connections;
      const e = await expectAppError(
        guarded().fetchInto(`http://allowed.test:${pub.port}/redirect-to?to=${encodeURIComponent(target)}`, store.batch()),
        'attachment-fetch-failed',
        /loopback/,
      );
      // A literal address may be named; one a name resolved to is not echoed back.
      expect(e.detail, target).toMatch(target.includes('internal.test') ? /internal\.test resolves to an address that is loopback/ : /127\.0\.0\.1|::1/);
      expect(trap.connections, target).toBe(trapBefore);
    }
    // Each hop is re-checked: also a redirect to another scheme.
    await expectAppError(
      guarded().fetchInto(`http://allowed.test:${pub.port}/redirect-to?to=${encodeURIComponent('file:///etc/passwd')}`, store.batch()),
      'attachment-fetch-failed',
      /scheme file/,
    );
  });

  it('DNS rebinding: the socket uses the addresses that were checked, not a second lookup', async () => {
    let calls = 0;
    const rebinding: LookupAll = (_host, _opts, cb) => {
      calls++;
      // First answer looks public; any later answer would point at the trap.
      process.nextTick(cb, null, [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }]);
    };
    const f = createMediaFetcher({ allowPrivate: false, timeoutMs: 2000, lookup: rebinding, addressPolicy });
    const pubBefore = pub.connections;
    // The rebinding name on the trap's port would reach the trap if re-resolved; use the
    // public server's port so that only the checked address (127.0.0.2) can answer.
    const m = await f.fetchInto(`http://rebind.test:${pub.port}/ok.png`, store.batch());
    expect(m.kind).toBe('image');
    expect(calls).toBe(1);
    expect(pub.connections).toBe(pubBefore + 1);
  });
});
