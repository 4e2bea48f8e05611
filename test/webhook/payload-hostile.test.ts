import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';

/** Hostile JSON bodies on the plain webhook (split from payload.test.ts): one service for the file. */
let h: Harness;
let seeded: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  h = await startHarness();
  seeded = await seedWorkspace(h.services);
});
afterAll(() => h?.close());

async function setup() {
  return seeded;
}

const alertCount = () => h.count('alerts');
const send = (token: string, payload: unknown) => h.call('POST', `/api/webhook/${token}`, { json: payload });

async function readBack(token: string, alertId: string) {
  const res = await h.call('GET', `/api/alerts/${alertId}`, { token });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

describe('webhook: hostile JSON', () => {
  it('refuses JSON nested deeper than 64 levels with a 400, not a stack overflow', async () => {
    const seed = await setup();
    const before = await alertCount();
    const body = '{"title":"x","metadata":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}';
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    const problem = await bodyOf.problem(res);
    expect(problem.type).toBe('http://alertbridge.test/problems/invalid-payload');
    expect(problem.detail).toMatch(/deeper than 64/);
    expect(await alertCount()).toBe(before);
  });
});

describe('webhook: names every JavaScript object knows', () => {
  // A lookup keyed by the sender's text must not find Object.prototype's members:
  // these once reached SQLite as a function or an object and answered 500.
  it.each([
    ['constructor', 400],
    [':constructor:', 201],
    ['__proto__', 201],
    [':__proto__:', 201],
    ['toString', 201],
    [':toString:', 201],
    ['hasOwnProperty', 400],
    [':hasOwnProperty:', 201],
    ['valueOf', 201],
    [' __proto__ ', 201],
    ['__proto__\n', 201],
    ['\tconstructor\r\n', 400],
    [': __proto__ :', 400],
    ['CONSTRUCTOR', 400],
  ])('emoji %j answers %i, never a 500', async (emoji, status) => {
    const seed = await setup();
    const res = await send(seed.general.webhookToken, { title: 't', emoji });
    expect(res.status).toBe(status);
    if (status === 201) {
      const { alertId } = (await res.json()) as { alertId: string };
      expect((await readBack(seed.ownerToken, alertId)).emoji).toBeNull();
    } else {
      expect((await bodyOf.invalid(res)).details).toEqual([expect.objectContaining({ code: 'too_big', path: ['emoji'] })]);
    }
  });

  it('keeps a metadata key named __proto__ as sent', async () => {
    const seed = await setup();
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, {
      body: '{"title":"t","metadata":{"__proto__":{"admin":true},"b":2}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    // The stored text itself: an object built from it would hide an own __proto__ key.
    expect(await h.query('SELECT metadata_json FROM alerts WHERE id = ?', [alertId])).toEqual([{ metadata_json: '{"__proto__":{"admin":true},"b":2}' }]);
  });
});
