import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import { capturedLogger } from './log-capture.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function setup() {
  const log = capturedLogger('debug');
  h = await startHarness({ overrides: { logger: log.logger } });
  return { h, seed: await seedWorkspace(h.services), lines: log.lines };
}

describe('X-Request-Id', () => {
  it('is generated for every answer: a 201, a problem document (also as `requestId`), the read API 401, /healthz', async () => {
    const { h, seed } = await setup();
    const created = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'hi' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toMatch(UUID);

    const unknown = await h.call('POST', '/api/webhook/whk_nope', { json: { title: 'hi' } });
    expect(unknown.status).toBe(404);
    const id = unknown.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(((await unknown.json()) as { requestId: string }).requestId).toBe(id);

    const unauthorized = await h.call('GET', '/api/channels');
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-request-id')).toMatch(UUID);
    expect((await h.call('GET', '/healthz')).headers.get('x-request-id')).toMatch(UUID);
    // A fresh one each time.
    expect(created.headers.get('x-request-id')).not.toBe(id);
  });

  it("keeps a client's sane id (1–200 of [A-Za-z0-9._:-]) and replaces anything else", async () => {
    const { h, seed } = await setup();
    const send = (rid: string) => h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'x' }, headers: { 'x-request-id': rid } });
    for (const sane of ['abc', 'trace-01.span:7_Z', 'a'.repeat(200)]) {
      expect((await send(sane)).headers.get('x-request-id')).toBe(sane);
    }
    for (const insane of ['', 'has space', 'a'.repeat(201), 'slash/y', '{"json":1}', 'é']) {
      const got = (await send(insane)).headers.get('x-request-id');
      expect(got, insane).toMatch(UUID);
    }
    const bad = await h.call('POST', '/api/webhook/whk_nope', { json: { title: 'x' }, headers: { 'x-request-id': 'ci-run-42' } });
    expect(((await bad.json()) as { requestId: string }).requestId).toBe('ci-run-42');
  });

  it("appears in the request's log lines, which carry no webhook or API token", async () => {
    const { h, seed, lines } = await setup();
    await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'x' }, headers: { 'x-request-id': 'req-webhook-1' } });
    await h.call('GET', '/api/channels', { token: seed.ownerToken, headers: { 'x-request-id': 'req-read-1' } });
    const entries = lines.map((l) => JSON.parse(l) as { requestId?: string; msg: string; path?: string });
    expect(entries.find((e) => e.requestId === 'req-webhook-1')).toMatchObject({ msg: 'request', path: '/api/webhook/****' });
    expect(entries.find((e) => e.requestId === 'req-read-1')).toMatchObject({ msg: 'request', path: '/api/channels' });
    for (const line of lines) {
      expect(line).not.toContain(seed.general.webhookToken);
      expect(line).not.toContain(seed.ownerToken);
    }
  });
});
