import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, closeServer, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

let h: Harness;
let slow: http.Server | undefined;
afterEach(async () => {
  await h?.close();
  await closeServer(slow);
  slow = undefined;
});

const count = async (table: string) => (await h.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n;

describe('Idempotency-Key', () => {
  it('replays the first answer within 24 h, creates nothing, and says so', async () => {
    const clock = new ManualClock();
    h = await startHarness({ overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const send = (body: object, key = 'deploy-42') =>
      h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: body, headers: { 'idempotency-key': key } });
    const first = await send({ title: 'Deploy 42' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const firstText = await first.text();
    clock.advance(23 * 60 * 60 * 1000);
    const retry = await send({ title: 'Deploy 42' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    // Byte for byte, with the same content type.
    expect(await retry.text()).toBe(firstText);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await count('alerts')).toBe(1);
    expect(await count('notification_jobs')).toBe(1);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(1);

    // Same key, different body: 422, nothing stored.
    const reused = await send({ title: 'Deploy 43' });
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toBe('application/problem+json');
    expect((await reused.json()).type).toBe('http://alertbridge.test/problems/idempotency-key-reused');
    expect(await count('alerts')).toBe(1);

    // Keys are per channel (per webhook token).
    const other = await h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { json: { title: 'Deploy 43' }, headers: { 'idempotency-key': 'deploy-42' } });
    expect(other.status).toBe(201);

    // After 24 h the key is forgotten and pruned.
    clock.advance(2 * 60 * 60 * 1000);
    expect((await h.services.maintenance()).idempotencyKeys).toBeGreaterThanOrEqual(1);
    const fresh = await send({ title: 'Deploy 42' });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotency-replayed')).toBeNull();
    expect(await count('alerts')).toBe(3);
  });

  it('replays a workflow run update as it was answered, without applying it a second time', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const send = (state: string, key: string, title = 'Deploy') =>
      h.call('POST', `/api/webhook/${seed.general.webhookToken}`, {
        json: { title, workflow: { runId: 'r1', state, steps: [{ name: 'build', state: state === 'running' ? 'running' : 'done' }] } },
        headers: { 'idempotency-key': key },
      });
    await send('running', 'start');
    const finish = await send('passed', 'finish');
    const finishText = await finish.clone().text();
    expect((await bodyOf.accepted(finish)).workflow).toEqual({ runId: 'r1', state: 'passed', created: false });
    const replay = await send('passed', 'finish');
    expect(replay.status).toBe(finish.status);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.text()).toBe(finishText);
    // One alert, one start and one finish notification, and one stream update for the finish.
    expect(await count('alerts')).toBe(1);
    expect((await h.query<{ kind: string }>('SELECT kind FROM notification_jobs ORDER BY id')).map((r) => r.kind)).toEqual(['workflow.started', 'workflow.finished']);
    expect((await h.query<{ type: string }>('SELECT type FROM alert_events ORDER BY id')).map((r) => r.type)).toEqual(['alert.created', 'alert.updated']);
  });

  it('does not store a rejected request: the corrected retry under the same key succeeds', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const send = (body: object) => h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: body, headers: { 'idempotency-key': 'k1' } });
    expect((await send({ title: '' })).status).toBe(400);
    expect((await send({ title: 'fixed' })).status).toBe(201);
  });

  it('rejects an unusable key', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't' }, headers: { 'idempotency-key': 'x'.repeat(300) } });
    expect(res.status).toBe(400);
    expect((await res.json()).type).toBe('http://alertbridge.test/problems/invalid-idempotency-key');
  });

  it('answers 409 to a retry sent while the first request is still running', async () => {
    // The first request downloads an attachment from a server that holds the response until told to go on.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let hits = 0;
    slow = http.createServer(async (_req, res) => {
      hits++;
      await gate;
      res.writeHead(200, { 'content-type': 'image/png' }).end(png());
    });
    await new Promise<void>((r) => slow!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/chart.png`;
    h = await startHarness({ env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    const send = () =>
      h.call('POST', `/api/webhook/${seed.general.webhookToken}`, {
        json: { title: 'with chart', attachments: [{ url }] },
        headers: { 'idempotency-key': 'slow-1' },
      });
    const first = send();
    await eventually(() => hits > 0, 'the first request to be fetching its attachment');
    const concurrent = await send();
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers.get('content-type')).toBe('application/problem+json');
    expect((await concurrent.json()).type).toBe('http://alertbridge.test/problems/idempotency-key-in-use');
    release();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await count('alerts')).toBe(1);
    expect(hits).toBe(1);
  });

  it('two truly simultaneous requests with one key: one 201, one 409, one alert', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const send = () => h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'once' }, headers: { 'idempotency-key': 'same' } });
    const statuses = (await Promise.all([send(), send()])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(await count('alerts')).toBe(1);
  });
});

describe('webhook rate limit', () => {
  it('answers 429 with Retry-After past WEBHOOK_RATE_LIMIT_PER_MINUTE per channel, stores nothing, and resets after the window', async () => {
    const clock = new ManualClock();
    h = await startHarness({ env: { WEBHOOK_RATE_LIMIT_PER_MINUTE: '2' }, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const send = (token: string) => h.call('POST', `/api/webhook/${token}`, { json: { title: 't' } });
    const first = await send(seed.general.webhookToken);
    expect(first.status).toBe(201);
    // The budget is announced on every answer, as on the read API.
    expect(Object.fromEntries(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-policy'].map((k) => [k, first.headers.get(k)]))).toEqual({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '1',
      'ratelimit-policy': '2;w=60',
    });
    expect((await send(seed.general.webhookToken)).status).toBe(201);
    const limited = await send(seed.general.webhookToken);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('ratelimit-reset'));
    expect((await bodyOf.problem(limited)).type).toBe('http://alertbridge.test/problems/rate-limited');
    expect(await count('alerts')).toBe(2);
    expect((await send(seed.deploys.webhookToken)).status).toBe(201); // another channel has its own budget
    clock.advance(60_000);
    expect((await send(seed.general.webhookToken)).status).toBe(201);
  });
});
