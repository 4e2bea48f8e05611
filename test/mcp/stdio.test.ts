import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcpStdio } from '../../packages/client/src/mcp-stdio.js';
import { accepted } from '../helpers/bodies.js';
import { listen, postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { INITIALIZE, PipeTransport, TOOL_NAMES, callTool, connected, problemOf } from './helpers.js';

/**
 * The stdio variant (`alertbridge mcp`, packages/client/src/mcp-stdio.ts) against the real service
 * over loopback: the SDK's own client on a stdio pair (in-process streams, and the spawned binary
 * through the SDK's StdioClientTransport), plus the proxy's own rules on raw lines.
 */

/** The real `alertbridge` binary, as `npx alertbridge mcp` runs it. */
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/alertbridge');

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let alertId: string;
let secretId: string;

beforeAll(async () => {
  h = await startHarness({ serve: true });
  seed = await seedWorkspace(h.services);
  alertId = accepted((await postAlert(h, seed.general.webhookToken, { title: 'Checkout latency high', level: 'warning' })).body).alertId;
  secretId = accepted((await postAlert(h, seed.secret.webhookToken, { title: 'Private', level: 'error' })).body).alertId;
});
afterAll(async () => h?.close());

/** The proxy on a pair of in-process streams; `done` settles when it returns (after its input ended). */
function proxyPair(token: string, url = h.base, fetchImpl?: typeof fetch) {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = runMcpStdio({ url, token, input, output, fetchImpl });
  return { transport: new PipeTransport(input, output), input, output, done };
}

/** Raw lines in, the proxy's output lines out (it returns once its input ended and every line was answered). */
async function linesThrough(token: string, lines: string[], opts: { url?: string; fetchImpl?: typeof fetch } = {}): Promise<Record<string, unknown>[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: string[] = [];
  output.on('data', (c: Buffer) => out.push(c.toString('utf8')));
  const done = runMcpStdio({ url: opts.url ?? h.base, token, input, output, fetchImpl: opts.fetchImpl });
  input.end(lines.map((l) => `${l}\n`).join(''));
  await done;
  const text = out.join('');
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('MCP over stdio (the proxy)', () => {
  it('the SDK client on a stdio pair: initialize, list tools, call tools; answers as over HTTP', async () => {
    const pair = proxyPair(seed.memberToken);
    const client = await connected(pair.transport);
    expect(client.getServerVersion()?.name).toBe('alertbridge');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const got = await callTool(client, 'get_alert', { id: alertId });
    const fromApi = await (await h.call('GET', `/api/alerts/${alertId}`, { token: seed.memberToken })).json();
    expect(got.json).toEqual(fromApi);
    const list = await callTool(client, 'list_alerts', { channel: 'general' });
    expect((list.json as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([alertId]);
    const hidden = await callTool(client, 'get_alert', { id: secretId });
    expect(hidden.isError).toBe(true);
    expect(problemOf(hidden.json)).toEqual(problemOf(await (await h.call('GET', `/api/alerts/${secretId}`, { token: seed.memberToken })).json()));
    const acked = await callTool(client, 'set_status', { id: alertId, action: 'acknowledge' });
    expect(acked.json).toMatchObject({ status: 'acknowledged' });
    await client.close();
    await pair.done;
    // One line per answer, nothing else: initialize, tools/list and four tools/call (the initialized notification has none).
    expect(pair.transport.lines).toHaveLength(6);
  });

  it('a notification gets no line; each request gets one, in order; a line that is not JSON gets a parse error', async () => {
    const out = await linesThrough(seed.ownerToken, [
      JSON.stringify(INITIALIZE),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '',
      '{"jsonrpc":"2.0","id":"p","method":"ping"}',
      '{not json',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_channels","arguments":{}}}',
    ]);
    expect(out.map((m) => m.id)).toEqual([1, 'p', null, 3]);
    expect(out[1]).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect(out[2]).toMatchObject({ error: { code: -32700 } });
    expect(out[3]).toMatchObject({ result: { content: [{ type: 'text' }] } });
  });

  it('a refused token: each request answered with a JSON-RPC error carrying the 401 reason; notifications stay silent', async () => {
    const out = await linesThrough(`${seed.ownerToken.slice(0, -4)}zzzz`, [JSON.stringify(INITIALIZE), '{"jsonrpc":"2.0","method":"notifications/initialized"}']);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } });
    expect((out[0]!.error as { message: string }).message).toMatch(/HTTP 401.*invalid_token_format/);
  });

  it('a service that cannot be reached: the request is answered with an error naming the URL', async () => {
    const closed = await listen(() => new Response(null));
    await closed.close();
    const out = await linesThrough(seed.ownerToken, [JSON.stringify(INITIALIZE)], { url: `${closed.url}/` });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ id: 1, error: { code: -32000 } });
    expect((out[0]!.error as { message: string }).message).toContain(`cannot reach ${closed.url}/mcp`);
  });

  it('an SSE answer is split into its messages; a session id and the agreed protocol version are sent back', async () => {
    const seen: Headers[] = [];
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers));
      const body = JSON.parse(String(init.body)) as { id?: number };
      if (body.id === undefined) return new Response(null, { status: 202 });
      const events =
        body.id === 1
          ? `: keep-alive\r\n\r\nid: e1\r\ndata: {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"x","version":"1"},"capabilities":{}}}\r\n\r\n`
          : `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",\ndata: "data":"multi-line"}}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":${body.id},"result":{}}\n\n`;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          // Split mid-event (and between \r and \n): the proxy must reassemble across chunks.
          const bytes = new TextEncoder().encode(events);
          for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
          c.close();
        },
      });
      return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' } });
    }) as unknown as typeof fetch;
    const out = await linesThrough('ab_x', [JSON.stringify(INITIALIZE), '{"jsonrpc":"2.0","method":"notifications/initialized"}', '{"jsonrpc":"2.0","id":2,"method":"ping"}'], {
      url: 'http://mcp.invalid',
      fetchImpl,
    });
    expect(out.map((m) => m.id ?? m.method)).toEqual([1, 'notifications/message', 2]);
    expect(out[1]).toMatchObject({ params: { data: 'multi-line' } });
    expect(seen.map((s) => s.get('mcp-session-id'))).toEqual([null, 'sess-1', 'sess-1']);
    expect(seen.map((s) => s.get('mcp-protocol-version'))).toEqual([null, '2025-06-18', '2025-06-18']);
    expect(seen[0]!.get('authorization')).toBe('Bearer ab_x');
    expect(seen[0]!.get('accept')).toBe('application/json, text/event-stream');
  });

  it('as a process: the SDK\'s StdioClientTransport spawns `alertbridge mcp` with ALERTBRIDGE_URL and ALERTBRIDGE_TOKEN', async () => {
    const transport = new StdioClientTransport({
      command: BIN,
      args: ['mcp'],
      env: { ...getDefaultEnvironment(), ALERTBRIDGE_URL: h.base, ALERTBRIDGE_TOKEN: seed.ownerToken },
      stderr: 'pipe',
    });
    const client = await connected(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      const channels = await callTool(client, 'list_channels');
      expect((channels.json as { slug: string }[]).map((c) => c.slug).sort()).toEqual(['deploys', 'general', 'security']);
    } finally {
      await client.close();
    }
  });
});
