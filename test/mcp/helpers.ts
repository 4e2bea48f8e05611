import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { PassThrough } from 'node:stream';
import { expect } from 'vitest';

/** The tools the server offers. */
export const TOOL_NAMES = ['get_alert', 'list_alerts', 'list_channels', 'list_threads', 'mark_read', 'search_alerts', 'set_status'];

/** The SDK's own client over real HTTP, authenticated with `token`. */
export async function httpClient(base: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  return connected(transport);
}

export async function connected(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'alertbridge-test', version: '1' });
  await client.connect(transport);
  return client;
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  /** The text parsed as JSON. */
  json: unknown;
}

/** Calls a tool; its one text content, parsed. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  const text = content[0]!.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json };
}

/** A problem document without what differs per request (its request id, and `instance`, the path it answered). */
export function problemOf(body: unknown): Record<string, unknown> {
  const { requestId: _requestId, instance: _instance, ...rest } = body as Record<string, unknown>;
  return rest;
}

/** An MCP `initialize` request as a raw JSON-RPC body. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * The client side of a stdio pair without a process: the SDK's own line framing (ReadBuffer,
 * serializeMessage) over two PassThrough streams, so `runMcpStdio` runs in the test's process.
 */
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Every line the proxy wrote, for the tests that count them. */
  readonly lines: string[] = [];
  private readonly buffer = new ReadBuffer();

  constructor(
    /** What the proxy reads (its stdin). */
    readonly toProxy: PassThrough,
    /** What the proxy writes (its stdout). */
    readonly fromProxy: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromProxy.on('data', (chunk: Buffer) => {
      this.lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      this.buffer.append(chunk);
      for (let m = this.buffer.readMessage(); m; m = this.buffer.readMessage()) this.onmessage?.(m);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toProxy.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toProxy.end();
    this.onclose?.();
  }
}
