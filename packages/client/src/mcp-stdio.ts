/**
 * `alertbridge mcp`: the Alertbridge MCP tools over stdio, for assistants that only speak stdio
 * (Claude Desktop, Claude Code, editors). A thin proxy: each newline-delimited JSON-RPC message read
 * from `input` is POSTed to the service's Streamable HTTP endpoint (`${url}/mcp`) with the API token,
 * and every JSON-RPC message of the answer (a JSON body or a Server-Sent Events stream) is written to
 * `output` as one line. The tools themselves run in the service, so this file knows none of them.
 *
 * No dependency and no import: Node's streams as given, and fetch. Nothing but protocol lines may be
 * written to `output` (stdout); the caller reports its own problems on stderr.
 */

export interface McpStdioOptions {
  /** The service's base URL (ALERTBRIDGE_URL), e.g. https://alerts.example.com */
  url: string;
  /** An API token (ALERTBRIDGE_TOKEN), sent as `Authorization: Bearer`. */
  token: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  fetchImpl?: typeof fetch;
}

type JsonRpcId = string | number | null;
interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: JsonRpcId;
  method?: unknown;
  result?: { protocolVersion?: unknown } & Record<string, unknown>;
  error?: unknown;
}

/** JSON-RPC's and the MCP SDK's codes for what goes wrong on the way. */
const PARSE_ERROR = -32700;
const TRANSPORT_ERROR = -32000;

/** Resolves once `input` has ended and every message read from it has been answered. */
export async function runMcpStdio(opts: McpStdioOptions): Promise<void> {
  const proxy = new McpHttpProxy(opts);
  const decoder = new TextDecoder();
  let buffered = '';
  // One message at a time, in order: a client waits for `initialize` before anything else, and
  // answers keep the order their requests were read in.
  for await (const chunk of opts.input) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') await proxy.forward(line);
    }
  }
  buffered += decoder.decode();
  if (buffered.trim() !== '') await proxy.forward(buffered);
}

class McpHttpProxy {
  private readonly endpoint: string;
  private readonly fetch: typeof fetch;
  /** Kept from the first answer that sets it, sent on every later request (a stateless server sets none). */
  private sessionId: string | undefined;
  /** The version `initialize` agreed on: the Streamable HTTP transport wants it on every later request. */
  private protocolVersion: string | undefined;

  constructor(private readonly opts: McpStdioOptions) {
    this.endpoint = `${opts.url.replace(/\/+$/, '')}/mcp`;
    this.fetch = opts.fetchImpl ?? fetch;
  }

  async forward(line: string): Promise<void> {
    let message: JsonRpcMessage | JsonRpcMessage[];
    try {
      message = JSON.parse(line) as JsonRpcMessage | JsonRpcMessage[];
    } catch {
      return this.write({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: a line on stdin is not JSON' } });
    }
    const requests = (Array.isArray(message) ? message : [message]).filter(isRequest);
    let res: Response;
    try {
      res = await this.fetch(this.endpoint, { method: 'POST', headers: this.headers(), body: line });
    } catch (err) {
      return this.failAll(requests, `cannot reach ${this.endpoint}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const session = res.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if (!res.ok) return this.failAll(requests, `${this.endpoint} answered HTTP ${res.status}: ${(await res.text()).slice(0, 1000)}`);
    const type = res.headers.get('content-type') ?? '';
    if (res.status === 202 || !res.body) return;
    if (type.includes('text/event-stream')) {
      for await (const data of sseData(res.body)) await this.answer(data);
    } else {
      const text = await res.text();
      if (text.trim() !== '') await this.answer(text);
    }
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  /** One JSON body or SSE event: a message or a batch of them, each written as its own line. */
  private async answer(text: string): Promise<void> {
    let parsed: JsonRpcMessage | JsonRpcMessage[];
    try {
      parsed = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
    } catch {
      return;
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      const version = m.result?.protocolVersion;
      if (typeof version === 'string' && m.result && 'serverInfo' in m.result) this.protocolVersion = version;
      await this.write(m);
    }
  }

  /** Every request of a message that got no answer is told why (a notification expects none). */
  private async failAll(requests: JsonRpcMessage[], why: string): Promise<void> {
    for (const r of requests) await this.write({ jsonrpc: '2.0', id: r.id ?? null, error: { code: TRANSPORT_ERROR, message: why } });
  }

  private write(message: unknown): Promise<void> {
    const out = this.opts.output;
    return new Promise((resolve, reject) => {
      out.write(`${JSON.stringify(message)}\n`, (err?: Error | null) => (err ? reject(err) : resolve()));
    });
  }
}

/** A request has a method and an id; a notification has no id, a response no method. */
function isRequest(m: JsonRpcMessage): boolean {
  return typeof m === 'object' && m !== null && typeof m.method === 'string' && m.id !== undefined && m.id !== null;
}

/** The `data` of each Server-Sent Event of a stream, as it arrives (multi-line data joined with \n; empty data skipped). */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.search(/\r\n|\r|\n/)) >= 0) {
        // A \r ending the chunk may be the first half of a \r\n: wait for the next chunk.
        if (!done && newline === buffered.length - 1 && buffered.endsWith('\r')) break;
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + (buffered.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      if (done) break;
    }
    if (data.length > 0) yield data.join('\n');
  } finally {
    reader.releaseLock();
  }
}
