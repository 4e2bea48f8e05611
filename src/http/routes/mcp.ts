import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError } from '../../domain/errors.js';
import { storageFailureOf, storageUnavailable } from '../../ops/storage-health.js';
import type { AppEnv } from '../env.js';
import { requestLogger } from '../middleware/request-context.js';
import { problemBody } from '../problems.js';
import { problemResponses } from '../schemas.js';

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional().openapi({ description: 'Absent on a notification (answered 202 with no body)' }),
    method: z.string().openapi({ example: 'tools/call' }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('JsonRpcMessage');

const JsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.null(),
    error: z.object({ code: z.number().int(), message: z.string() }),
  })
  .openapi('JsonRpcError', { description: "The MCP transport's own refusal (JSON-RPC error without an id)" });

const notAllowed = {
  405: {
    description: 'Stateless server: no server-initiated stream (GET) and no session to end (DELETE). `Allow: POST`.',
    headers: z.object({ allow: z.string().openapi({ example: 'POST' }) }),
  },
} as const;

const MCP_DESCRIPTION =
  'The Model Context Protocol (Streamable HTTP transport, stateless) for AI assistants: tools list_channels, list_alerts, search_alerts, ' +
  'get_alert, mark_read and set_status over the read API\'s use cases, with the same Bearer tokens, visibility and rate limit. ' +
  'Send `Accept: application/json, text/event-stream`; answers are JSON. A tool refusal is a tool result with `isError: true` whose ' +
  "text is the read API's problem document. See docs/mcp.md.";

/**
 * POST /mcp: the MCP endpoint (src/mcp/). Behind the read API's Bearer authentication and per-token
 * rate limit (one count per HTTP request); GET and DELETE answer 405, as the Streamable HTTP
 * transport says a server without a standalone stream or sessions does.
 */
export function registerMcp(app: OpenAPIHono<AppEnv>, auth: MiddlewareHandler<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/mcp',
    summary: 'Model Context Protocol endpoint for AI assistants (Streamable HTTP)',
    description: MCP_DESCRIPTION,
    security: [{ bearerAuth: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]) } } } },
    responses: {
      200: { description: 'The JSON-RPC answer(s)', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
      202: { description: 'Accepted: the body held only notifications or responses' },
      400: { description: 'Not JSON, not JSON-RPC, or an unsupported MCP-Protocol-Version', content: { 'application/json': { schema: JsonRpcError } } },
      401: problemResponses[401],
      406: { description: 'The Accept header lacks application/json or text/event-stream', content: { 'application/json': { schema: JsonRpcError } } },
      413: { description: 'The body is over 64 KiB', content: { 'application/json': { schema: JsonRpcError } } },
      415: { description: 'The body is not application/json', content: { 'application/json': { schema: JsonRpcError } } },
      429: problemResponses[429],
    },
  });
  for (const method of ['get', 'delete'] as const) {
    app.openAPIRegistry.registerPath({ method, path: '/mcp', summary: `Not offered (stateless MCP server): 405`, responses: notAllowed });
  }

  app.post('/mcp', auth, async (c) => {
    const { readApi, search, alertActions, chatThreads } = c.var.services;
    const { answerMcpRequest } = await mcpServer();
    return answerMcpRequest(c.req.raw, { readApi, search, alertActions, chatThreads }, { principal: c.var.principal, failure: (err) => toolFailure(c, err) });
  });
  app.all('/mcp', (c) => {
    c.header('allow', 'POST');
    throw new HTTPException(405, { message: 'this MCP server is stateless: send JSON-RPC messages with POST' });
  });
}

let loaded: Promise<typeof import('../../mcp/server.js')> | undefined;

/** The MCP SDK is loaded on the first POST /mcp, not at start: it adds about a second to every start, and most installations never use it. */
function mcpServer() {
  loaded ??= import('../../mcp/server.js');
  return loaded;
}

/** A tool's failure as the problem document the read API would answer; an unexpected one is logged and answered as `internal`. */
function toolFailure(c: Context<AppEnv>, err: unknown): string {
  const { config, ops } = c.var.services;
  let problem: AppError;
  if (err instanceof AppError) problem = err;
  else {
    const storage = storageFailureOf(err);
    if (storage) {
      ops.storage.failed(storage);
      problem = storageUnavailable(storage.reason);
    } else {
      requestLogger(c).error({ err, path: '/mcp' }, 'unhandled error in an MCP tool');
      problem = new AppError('internal');
    }
  }
  return JSON.stringify(problemBody(config.publicUrl, problem, '/mcp', c.get('requestId')));
}
