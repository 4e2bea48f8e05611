import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/bodies.js';
import { listen, postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { expectWholeDatabase } from './whole-database.js';

/**
 * Hostile input to the MCP endpoint (POST /mcp, issue 30) over real HTTP: malformed and wrong
 * JSON-RPC, unknown methods and tools, arguments of every wrong kind, batches, bodies over the
 * limit, wrong content types and Accept headers, every kind of token. The property: no 5xx ever; a
 * 4xx is the read API's 401 body, a problem document, or the MCP transport's JSON-RPC error; a tool
 * that refuses answers a problem document or a validation message, never `internal`. FUZZ_RUNS /
 * FUZZ_SEED as in fuzz.test.ts.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: Harness;
let server: Awaited<ReturnType<typeof listen>>;
let pool: Pool;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let readOnlyToken: string;
let alertId: string;
let secretId: string;
const statuses = new Map<number, number>();
const toolOutcomes = new Map<string, number>();

beforeAll(async () => {
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '100000000' } });
  seed = await seedWorkspace(h.services);
  readOnlyToken = (await h.services.accounts.createToken(seed.ws.id, seed.member.id, 'ro', { readOnly: true })).token;
  alertId = accepted((await postAlert(h, seed.general.webhookToken, { title: 'fuzz target', level: 'error' })).body).alertId;
  secretId = accepted((await postAlert(h, seed.secret.webhookToken, { title: 'private target' })).body).alertId;
  server = await listen(h.app.fetch);
  pool = new Pool(server.url, { connections: 4, pipelining: 1 });
});
afterAll(async () => {
  await pool?.close();
  await server?.close();
  await h?.close();
});

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const nasty = fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '%00', '../', '<script>', "'; DROP TABLE alerts;--", ...PROTO_KEYS);
const text = fc.oneof(fc.string({ maxLength: 40 }), nasty, fc.constantFrom('x'.repeat(300), 'é'.repeat(257)));
const wrong = fc.oneof(fc.jsonValue({ maxDepth: 2 }), text, fc.constant(null), fc.integer(), fc.double(), fc.boolean());

/** Mostly right, sometimes wrong: reaches the use cases behind the schemas as well as the schemas. */
const often = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: wrong });
const channel = often(fc.constantFrom('general', 'security', 'deploys', 'nope', '__proto__', ''));
const id = often(fc.constantFrom('@alert', '@alert', '@secret', 'alt_00000000000000000000000000', '', '__proto__'));
const level = often(fc.constantFrom('info', 'error', 'ERROR', 'fatal'));
const status = often(fc.array(fc.constantFrom('open', 'acknowledged', 'resolved', 'closed'), { maxLength: 4 }));
const limit = often(fc.constantFrom(1, 50, 100, 0, 101, -1, 1.5));
const opt = { requiredKeys: [] as never[] };
/** Each tool with its own arguments (and, now and then, a key it does not know). */
const ARGS: Record<string, fc.Arbitrary<unknown>> = {
  list_channels: fc.record({ extra: wrong }, opt),
  list_alerts: fc.record({ channel, level, status, limit, cursor: often(fc.constantFrom('alt_00000000000000000000000000', 'x', '1')) }, { requiredKeys: ['channel'] }),
  search_alerts: fc.record(
    { query: often(fc.oneof(fc.constantFrom('fuzz', 'target*', '"fuzz target"', '   ', '*', 'x'.repeat(300)), text)), channel, level, status, limit, cursor: often(fc.constantFrom('1', '0', 'x', '99999999999999999999')) },
    { requiredKeys: ['query'] },
  ),
  get_alert: fc.record({ id }),
  mark_read: fc.record({ id, read: often(fc.boolean()) }, { requiredKeys: ['id'] }),
  set_status: fc.record({ id, action: often(fc.constantFrom('acknowledge', 'resolve', 'reopen', 'delete')) }),
  list_threads: fc.record({ channel, sort: often(fc.constantFrom('activity', 'reactions', 'votes')), tag: often(fc.constantFrom('ui', '', 'x'.repeat(101))), limit, cursor: often(fc.constantFrom('1.123456789012345678', 'x', '')) }, { requiredKeys: ['channel'] }),
};
const toolCall = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(ARGS)).chain((name) => ARGS[name]!.map((a) => ({ name, arguments: a }))) },
  { weight: 1, arbitrary: fc.record({ name: text, arguments: wrong }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constantFrom(...Object.keys(ARGS)), arguments: wrong }) },
);
const request = fc.oneof(
  { weight: 6, arbitrary: toolCall.map((params) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) as unknown) },
  { weight: 1, arbitrary: fc.constant({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'f', version: '1' } } } as unknown) },
  { weight: 1, arbitrary: fc.constantFrom('tools/list', 'ping', 'resources/list', 'prompts/get', 'notifications/initialized', 'nope', '__proto__').map((method) => ({ jsonrpc: '2.0', id: 2, method }) as unknown) },
  { weight: 1, arbitrary: fc.record({ jsonrpc: often(fc.constant('2.0')), id: often(fc.integer()), method: often(text), params: wrong }, { requiredKeys: [] }) as fc.Arbitrary<unknown> },
);
const body = fc.oneof(
  { weight: 8, arbitrary: request.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.array(request, { maxLength: 3 }).map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constantFrom('{', '[]', 'null', '{"jsonrpc":"2.0"', '\u0000')) },
  { weight: 1, arbitrary: fc.constantFrom(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } })) },
);
const probe = fc.record({
  method: fc.oneof({ weight: 9, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD') }),
  token: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('owner', 'member', 'readonly') }, { weight: 1, arbitrary: fc.constantFrom('none', 'stranger', 'Bearer ', 'Bearer ab_', 'Basic x') }),
  contentType: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=utf-8', 'multipart/form-data', 'application/jsonx', '') }),
  accept: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json, text/event-stream') }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', '') }),
  protocolVersion: fc.option(fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01', 'x'), { nil: undefined }),
  body,
});
type Probe = typeof probe extends fc.Arbitrary<infer T> ? T : never;

/**
 * Run first, whatever the seed: one request of each answer and tool refusal the coverage check
 * below asks for, so that check cannot fail on an unlucky random draw.
 */
const call = (name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const base: Probe = { method: 'POST', token: 'owner', contentType: 'application/json', accept: 'application/json, text/event-stream', protocolVersion: undefined, body: call('list_channels', {}) };
const PROBES: Probe[] = [
  base,
  { ...base, token: 'readonly', body: call('set_status', { id: '@alert', action: 'acknowledge' }) },
  { ...base, token: 'member', body: call('get_alert', { id: '@secret' }) },
  { ...base, body: call('search_alerts', { query: 'x'.repeat(300) }) },
  { ...base, body: call('get_alert', { id: 5 }) },
  { ...base, method: 'GET' },
  { ...base, token: 'none' },
  { ...base, accept: 'application/json' },
  { ...base, contentType: 'text/plain' },
  { ...base, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } }) },
  { ...base, body: '{' },
];
const EXAMPLES = PROBES.map((p): [Probe] => [p]);

async function send(p: Probe) {
  const tokens: Record<string, string> = { owner: seed.ownerToken, member: seed.memberToken, readonly: readOnlyToken, stranger: seed.strangerToken };
  const headers: Record<string, string> = {};
  if (p.token in tokens) headers.authorization = `Bearer ${tokens[p.token]}`;
  else if (p.token !== 'none') headers.authorization = p.token;
  if (p.contentType) headers['content-type'] = p.contentType;
  if (p.accept) headers.accept = p.accept;
  if (p.protocolVersion) headers['mcp-protocol-version'] = p.protocolVersion;
  const hasBody = p.method !== 'GET' && p.method !== 'HEAD';
  const payload = p.body.replaceAll('@alert', alertId).replaceAll('@secret', secretId);
  const res = await pool.request({ method: p.method as 'POST', path: '/mcp', headers, body: hasBody ? payload : undefined });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), text: await res.body.text() };
}

/** What every answer promises; a reason when it is broken. */
function violation(p: Probe, a: Awaited<ReturnType<typeof send>>): string | null {
  if (a.status >= 500) return `${a.status}: ${a.text.slice(0, 300)}`;
  if (p.method === 'HEAD' || a.status === 202) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(a.text);
  } catch {
    return `${a.status} with a body that is not JSON: ${a.text.slice(0, 200)}`;
  }
  const b = parsed as Record<string, unknown>;
  if (a.status === 401) return b.error === 'Unauthorized' && typeof b.reason === 'string' ? null : `401 body ${a.text}`;
  if (a.status >= 400) {
    if (a.type.startsWith('application/problem+json')) return b.status === a.status && typeof b.type === 'string' ? null : `problem ${a.text}`;
    const e = b.error as { code?: unknown } | undefined;
    return a.type.startsWith('application/json') && b.jsonrpc === '2.0' && typeof e?.code === 'number' ? null : `${a.status} as ${a.type}: ${a.text.slice(0, 200)}`;
  }
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    const result = (m as { result?: { isError?: boolean; content?: { text: string }[] } }).result;
    if (!result?.isError) continue;
    const textOf = result.content?.[0]?.text ?? '';
    const outcome = textOf.startsWith('{') ? `problem ${(JSON.parse(textOf) as { status: number }).status}` : 'validation';
    toolOutcomes.set(outcome, (toolOutcomes.get(outcome) ?? 0) + 1);
    if (/\/problems\/internal"/.test(textOf)) return `a tool failed inside: ${textOf}`;
  }
  return null;
}

describe('MCP endpoint under hostile input', () => {
  it(`${RUNS} generated requests: no 5xx; 401 body, problem documents or JSON-RPC errors; no tool fails inside`, { timeout: Math.max(60_000, RUNS * 60) }, async () => {
    await fc.assert(
      fc.asyncProperty(probe, async (p) => {
        const a = await send(p);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        const why = violation(p, a);
        if (why) throw new Error(`${p.method} ${JSON.stringify({ ...p, body: p.body.slice(0, 300) })}\n→ ${why}`);
        return true;
      }),
      { numRuns: RUNS, seed: SEED, examples: EXAMPLES },
    );
  });

  it('the generated requests reach answers, refusals and tool errors of each kind', (t) => {
    if (RUNS < 300) t.skip();
    const seen = [...statuses.keys()];
    for (const s of [200, 400, 401, 405, 406, 413, 415]) expect(seen, JSON.stringify([...statuses])).toContain(s);
    for (const o of ['problem 404', 'problem 403', 'problem 400', 'validation']) expect([...toolOutcomes.keys()], JSON.stringify([...toolOutcomes])).toContain(o);
  });

  it('the service is still whole afterwards; only the owner (a member of it) ever changed the private alert', async () => {
    await expectWholeDatabase(h);
    const res = await h.call('GET', `/api/alerts/${secretId}/history`, { token: seed.ownerToken });
    const actors = new Set(((await res.json()) as { history: { actor: { id: string } }[] }).history.map((e) => e.actor.id));
    expect([...actors].filter((a) => a !== seed.owner.id)).toEqual([]);
  });
});
