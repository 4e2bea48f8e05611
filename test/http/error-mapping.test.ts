import http from 'node:http';
import { HTTPException } from 'hono/http-exception';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { startHarness, type Harness, listen, postAlert, seedWorkspace } from '../helpers/harness.js';
import { bodyOf } from '../helpers/bodies.js';

let h: Harness;
let seeded: Awaited<ReturnType<typeof seedWorkspace>>;

/** One service for a describe block's table of requests (each posts its own alert, or none): a fresh database costs a second or two on PostgreSQL. */
function serviceForBlock() {
  beforeAll(async () => {
    h = await startHarness();
    seeded = await seedWorkspace(h.services);
  });
  afterAll(() => h?.close());
}

const problemOf = async (res: Response) => {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  return bodyOf.problem(res);
};

describe('read API bodies in a type other than JSON', () => {
  serviceForBlock();
  const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/xml'];

  it.each(types.flatMap((type) => [[type, ''], [type, 'isRead=true']]))('PATCH /api/alerts/{id} with %s and body %j is a 415 problem', async (type, body) => {
    const seed = seeded;
    const { body: created } = await postAlert(h, seed.general.webhookToken, { title: 't' });
    const res = await h.call('PATCH', `/api/alerts/${created.alertId}`, { token: seed.ownerToken, headers: { 'content-type': type }, body });
    expect(res.status).toBe(415);
    const problem = await problemOf(res);
    expect(problem).toMatchObject({ type: 'http://alertbridge.test/problems/unsupported-content-type', status: 415, title: 'unsupported content type' });
    expect(problem.detail).toContain("send -H 'Content-Type: application/json'");
    // Nothing changed.
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${created.alertId}`, { token: seed.ownerToken }));
    expect(alert.isRead).toBe(false);
  });

  it.each(types)('POST /api/alerts/mark-all-read with %s: no body is the spec\'s "no body", a body is a 415', async (type) => {
    const seed = seeded;
    const empty = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, headers: { 'content-type': type }, body: '' });
    expect(empty.status).toBe(200);
    const withBody = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, headers: { 'content-type': type }, body: 'channelId=general' });
    expect(withBody.status).toBe(415);
    expect((await problemOf(withBody)).type).toBe('http://alertbridge.test/problems/unsupported-content-type');
  });

  it('PATCH with JSON that does not parse is the malformed-json problem', async () => {
    const seed = seeded;
    const { body: created } = await postAlert(h, seed.general.webhookToken, { title: 't' });
    const res = await h.call('PATCH', `/api/alerts/${created.alertId}`, { token: seed.ownerToken, headers: { 'content-type': 'application/json' }, body: '{"isRead":' });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).type).toBe('http://alertbridge.test/problems/malformed-json');
  });
});

describe('any HTTPException is a problem document with its own status', () => {
  serviceForBlock();
  it.each([
    [400, 'Malformed JSON in request body', 'http://alertbridge.test/problems/malformed-json'],
    [400, 'Malformed FormData request.', 'http://alertbridge.test/problems/invalid-body'],
    [404, 'gone', 'http://alertbridge.test/problems/not-found'],
    [413, 'too big', 'http://alertbridge.test/problems/payload-too-large'],
    [415, 'Unsupported Media Type', 'http://alertbridge.test/problems/unsupported-content-type'],
    [405, 'nope', 'about:blank'],
    [409, 'busy', 'about:blank'],
    [503, 'later', 'about:blank'],
    [418, 'teapot', 'about:blank'],
  ] as const)('%i (%s)', async (status, message, type) => {
    const app = createApp(h.services, {
      extend: (a) => a.get('/throws', () => {
        throw new HTTPException(status, { message });
      }),
    });
    const res = await app.request('/throws');
    expect(res.status).toBe(status);
    const problem = await problemOf(res);
    expect(problem).toMatchObject({ type, status });
    expect(problem.title).toBe(problem.error);
    expect(problem.title.length).toBeGreaterThan(0);
    // A server-side status leaks nothing; a client-side one says what was wrong.
    if (status >= 500) expect(problem.detail).toBeUndefined();
    else if (type === 'about:blank') expect(problem.detail).toBe(message);
  });
});

describe('a client that aborts its request', () => {
  let own: Harness | undefined;
  afterEach(async () => {
    await own?.close();
    own = undefined;
  });

  it('is logged once at info as an aborted request, without a stack, and nothing is stored', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const h = (own = await startHarness({ overrides: { logger } }));
    const seed = await seedWorkspace(h.services);
    const server = await listen(h.app.fetch);
    try {
      for (const type of ['application/json', 'multipart/form-data; boundary=xyz']) {
        const before = lines.length;
        const arrived = new Promise((r) => server.server.once('request', r));
        const req = http.request(new URL(`/api/webhook/${seed.general.webhookToken}`, server.url), {
          method: 'POST',
          headers: { 'content-type': type, 'content-length': '100000' },
        });
        req.on('error', () => {});
        req.write('{"title":"half", "message": "');
        // Hang up mid-body once the service is handling the request.
        await arrived;
        req.destroy();
        await expect.poll(() => lines.slice(before).find((l) => l.msg === 'request')).toBeTruthy();
        const mine = lines.slice(before);
        expect(mine.filter((l) => l.msg === 'request aborted by the client')).toEqual([
          expect.objectContaining({ level: 30, path: '/api/webhook/****', method: 'POST' }),
        ]);
        expect(mine.find((l) => (l.level as number) >= 40)).toBeUndefined();
        expect(JSON.stringify(mine)).not.toContain('stack');
        expect(mine.find((l) => l.msg === 'request')).toMatchObject({ status: 499 });
      }
      expect(await h.count('alerts')).toBe(0);
    } finally {
      await server.close();
    }
  });
});
