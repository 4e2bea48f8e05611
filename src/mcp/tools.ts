import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AlertActions } from '../domain/alert-actions.js';
import type { AlertLevel } from '../domain/alert-rows.js';
import type { ChatThreads } from '../domain/chat/threads.js';
import type { ReadApi } from '../domain/read-api.js';
import type { SearchAlerts } from '../domain/search.js';
import { SEARCH_LIMITS } from '../domain/search-query.js';
import { requireWriter, type Principal } from '../domain/tokens.js';
import { LIST_PAGE_SIZE, THREAD_ID_PATTERN } from '../http/schemas.js';
import { ID_PATTERN } from '../lib/ids.js';

/** The use cases the tools call: the same ones the read API's routes call (src/http/deps.ts fits this shape). */
export interface McpToolDeps {
  readApi: ReadApi;
  search: SearchAlerts;
  alertActions: AlertActions;
  chatThreads: Pick<ChatThreads, 'list'>;
}

/** One request's context: who calls, and how a failure becomes the tool error's text (the API's problem document). */
export interface ToolCall {
  principal: Principal;
  /** The failure as the text of a tool error: the problem document the HTTP API would answer with. */
  failure(err: unknown): string;
}

/** The read API's page size: the tools' JSON schemas carry the same bounds. */
const PAGE = LIST_PAGE_SIZE;
const LEVEL_OF = { info: 'INFO', success: 'SUCCESS', warning: 'WARNING', error: 'ERROR' } as const satisfies Record<string, AlertLevel>;
const STATUS_OF_ACTION = { acknowledge: 'acknowledged', resolve: 'resolved', reopen: 'open' } as const;

const channel = z.string().min(1).max(200).describe('Channel id (ch_…) or slug, as list_channels returns them');
const alertId = z.string().min(1).max(100).describe('Alert id (alt_…), as list_alerts and search_alerts return them');
const level = z.enum(['info', 'success', 'warning', 'error']).describe('Only standard alerts of this level');
const limit = z.number().int().min(PAGE.min).max(PAGE.max).default(PAGE.default).describe(`Page size, ${PAGE.min} to ${PAGE.max} (default ${PAGE.default})`);
const statuses = z
  .array(z.enum(['open', 'acknowledged', 'resolved']))
  .min(1)
  .max(3)
  .describe('Only alerts with one of these statuses (open: nobody has acted on it yet)');
const thread = z
  .string()
  .regex(THREAD_ID_PATTERN, 'thread must be a Discord thread id (the thread.id of a message)')
  .describe("Only this Discord thread's or forum post's messages: a message's thread.id, or a list_threads id");
const tag = z.string().min(1).max(100).regex(/^\P{Cc}*$/u, 'tag must not contain control characters').describe('Only messages of forum posts with this tag applied (by name)');

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * The Alertbridge tools on one MCP server, for one caller. Each calls the use case its read-API
 * route calls and answers that route's JSON as text; a refusal is a tool error whose text is the
 * route's problem document (a channel or alert the token cannot see is the same not-found as one
 * that does not exist).
 */
export function registerAlertTools(server: McpServer, deps: McpToolDeps, call: ToolCall): void {
  const p = call.principal;
  const run = async (work: () => Promise<string>): Promise<CallToolResult> => {
    try {
      return { content: [{ type: 'text', text: await work() }] };
    } catch (err) {
      return { content: [{ type: 'text', text: call.failure(err) }], isError: true };
    }
  };

  server.registerTool(
    'list_channels',
    {
      title: 'List channels',
      description:
        'Lists the channels this token can see, each with its id, slug, name, whether it is private, its Discord link (chat) and ' +
        "the caller's unread count (_count.alerts). Start here to find the channel to pass to list_alerts or search_alerts.",
      annotations: { title: 'List channels', ...READS },
    },
    () => run(async () => JSON.stringify((await deps.readApi.listChannels(p)).map(({ webhookToken: _secret, ...shown }) => shown))),
  );

  server.registerTool(
    'list_alerts',
    {
      title: 'List alerts of a channel',
      description:
        'Lists the alerts of one channel, newest first, one page at a time: {alerts, nextCursor, hasMore}. Pass nextCursor back as ' +
        'cursor for the next page. Filter by level (not on chat-connected channels), status and Discord thread; order asc reads ' +
        'oldest first (a thread as it was written). Each alert carries its title, message, level, status, fields, links, attachments, ' +
        'isRead and createdAt.',
      inputSchema: {
        channel,
        level: level.optional(),
        status: statuses.optional(),
        thread: thread.optional(),
        order: z.enum(['desc', 'asc']).default('desc').describe('desc: newest first (default); asc: oldest first'),
        limit,
        cursor: z.string().regex(ID_PATTERN, 'cursor must be the nextCursor of the previous page').optional().describe('The nextCursor of the previous page'),
      },
      annotations: { title: 'List alerts', ...READS },
    },
    (a) =>
      run(() =>
        deps.readApi.listAlertsJson(p, a.channel, {
          limit: a.limit,
          cursor: a.cursor,
          level: a.level ? LEVEL_OF[a.level] : undefined,
          status: a.status?.join(','),
          thread: a.thread,
          ascending: a.order === 'asc',
        }),
      ),
  );

  server.registerTool(
    'search_alerts',
    {
      title: 'Search alerts',
      description:
        'Full-text search across every channel this token can see (or one channel), newest first: {alerts, nextCursor, hasMore}. ' +
        'Matches titles, messages, fields, workflow steps and errors, links, sources, actors, chat messages and the names of their ' +
        'Discord threads and forum posts; thread and tag narrow to one thread or to forum posts with a tag. All words are required; ' +
        'a trailing * makes a prefix (deploy*), "double quotes" make a phrase; there are no other operators.',
      inputSchema: {
        query: z.string().min(1).describe(`The words to find: at most ${SEARCH_LIMITS.maxQueryChars} characters and ${SEARCH_LIMITS.maxTerms} words or phrases`),
        channel: channel.optional(),
        level: level.optional(),
        status: statuses.optional(),
        thread: thread.optional(),
        tag: tag.optional(),
        limit,
        cursor: z.string().max(20).optional().describe('The nextCursor of the previous page (opaque)'),
      },
      annotations: { title: 'Search alerts', ...READS },
    },
    (a) =>
      run(async () =>
        JSON.stringify(
          await deps.search.search(p, {
            q: a.query,
            channel: a.channel,
            level: a.level ? LEVEL_OF[a.level] : undefined,
            status: a.status?.join(','),
            thread: a.thread,
            tag: a.tag,
            cursor: a.cursor,
            limit: a.limit,
          }),
        ),
      ),
  );

  server.registerTool(
    'list_threads',
    {
      title: "List a community channel's threads",
      description:
        'Lists the Discord threads and forum posts of a chat-connected channel: {threads, nextCursor, hasMore}, each ' +
        '{id, name, tags, starterAlertId, messageCount, lastMessageAt, reactionCount}. sort=reactions ranks forum posts by votes ' +
        "(feature requests); tag keeps posts with that forum tag. One thread's messages: list_alerts with thread (order asc reads " +
        'it as written); search_alerts finds words inside threads and in their names.',
      inputSchema: {
        channel,
        sort: z.enum(['activity', 'reactions']).default('activity').describe('activity: newest message first (default); reactions: most reactions first'),
        tag: z.string().min(1).max(100).optional().describe('Only forum posts with this tag applied (by name)'),
        limit,
        cursor: z.string().max(64).optional().describe('The nextCursor of the previous page (opaque)'),
      },
      annotations: { title: 'List threads', ...READS },
    },
    (a) => run(async () => JSON.stringify(await deps.chatThreads.list(p, a.channel, { sort: a.sort, tag: a.tag, limit: a.limit, cursor: a.cursor }))),
  );

  server.registerTool(
    'get_alert',
    {
      title: 'Get one alert',
      description: "Gets one alert by id with everything it carries, plus its channel's name and slug (channelName, channelSlug).",
      inputSchema: { id: alertId },
      annotations: { title: 'Get alert', ...READS },
    },
    (a) => run(async () => JSON.stringify(await deps.readApi.getAlert(p, a.id))),
  );

  server.registerTool(
    'mark_read',
    {
      title: 'Mark an alert read',
      description:
        'Marks one alert read (or unread with read: false) for the calling user only; nobody else sees the change. Answers the updated alert.',
      inputSchema: { id: alertId, read: z.boolean().default(true).describe('false marks it unread again') },
      annotations: { title: 'Mark read', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (a) => run(async () => JSON.stringify(await deps.readApi.setRead(p, a.id, a.read))),
  );

  server.registerTool(
    'set_status',
    {
      title: "Change an alert's status",
      description:
        "Changes an alert's status for everyone in the workspace: acknowledge (someone is on it), resolve (fixed), or reopen. " +
        "Recorded in the alert's history under the token's user. Asking for the status it already has changes nothing. " +
        'Refused for read-only tokens. Answers the updated alert.',
      inputSchema: { id: alertId, action: z.enum(['acknowledge', 'resolve', 'reopen']).describe('acknowledge, resolve or reopen') },
      annotations: { title: 'Set status', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (a) =>
      run(async () => {
        requireWriter(p);
        await deps.alertActions.change(p, a.id, { status: STATUS_OF_ACTION[a.action] }, 'api');
        return JSON.stringify(await deps.readApi.getAlert(p, a.id));
      }),
  );
}
