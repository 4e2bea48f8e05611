import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { registerAlertTools, type McpToolDeps, type ToolCall } from './tools.js';

/** A JSON-RPC message to these tools is a few hundred bytes; a body near this is not one. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

/** What the server says about itself in `initialize`. */
const SERVER_INFO = { name: 'alertbridge', version: '1' };

const INSTRUCTIONS =
  'Alertbridge holds the alerts your team and its systems send (deploys, errors, CI runs, Discord messages). ' +
  'Use list_channels to see the channels, list_alerts or search_alerts to find alerts, get_alert for one alert, ' +
  "list_threads for a Discord community's threads and forum posts, mark_read for your own read state " +
  'and set_status to acknowledge, resolve or reopen an alert for everyone.';

/**
 * Answers one HTTP request of the MCP Streamable HTTP transport, statelessly: a new server and
 * transport per request (the SDK's stateless mode), so any node of a cluster can answer any request
 * and nothing is kept between them. JSON answers, not SSE: every tool answers at once and sends no
 * progress, and a plain JSON body is what a proxy and a log can read.
 */
export async function answerMcpRequest(req: Request, deps: McpToolDeps, call: ToolCall): Promise<Response> {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  registerAlertTools(server, deps, call);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    // In JSON mode the promise settles once every answer of the request is in the body.
    return await transport.handleRequest(req);
  } finally {
    await server.close();
  }
}
