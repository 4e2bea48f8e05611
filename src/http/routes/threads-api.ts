import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.js';
import { PageLimitQuery, problemResponses } from '../schemas.js';
import { validationError } from '../validation.js';

const ThreadsQuery = z.object({
  cursor: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: 'The nextCursor of the previous page; omit for the first page.' }),
  limit: PageLimitQuery,
  sort: z
    .enum(['activity', 'reactions'], { message: 'sort must be activity or reactions' })
    .default('activity')
    .openapi({ description: "activity: newest message first (default); reactions: most reactions on the starter message first (feature-request voting)." }),
  tag: z.string().min(1).max(100).optional().openapi({ description: 'Only forum posts with this tag applied (by name).' }),
});

/** A thread or forum post of a chat-connected channel. */
export const ChatThread = z
  .object({
    id: z.string().openapi({ description: 'The Discord thread id' }),
    name: z.string().openapi({ description: 'Its current name (a forum post: the title)' }),
    tags: z.array(z.string()).openapi({ description: "A forum post's applied tags by name; [] for other threads" }),
    starterAlertId: z.string().nullable().openapi({ description: 'The alert of the starter message (same snowflake as the thread), null when not stored' }),
    messageCount: z.number().int().openapi({ description: 'Stored messages of the thread, the starter included' }),
    lastMessageAt: z.string().nullable().openapi({ format: 'date-time' }),
    reactionCount: z.number().int().openapi({ description: "Reactions on the starter message, all emoji together" }),
  })
  .openapi('ChatThread');

export const ThreadPage = z
  .object({ threads: z.array(ChatThread), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('ThreadPage');

const listThreads = createRoute({
  method: 'get',
  path: '/api/channels/{channel}/threads',
  summary: "List a chat-connected channel's threads and forum posts, newest activity first",
  description:
    'Same visibility as the channel: a channel the token cannot see is a 404. A channel without threads (or not connected to Discord) lists none. ' +
    "One thread's messages: GET /api/channels/{channel}/alerts?thread={id}.",
  security: [{ bearerAuth: [] }],
  request: {
    params: z.object({ channel: z.string().openapi({ param: { name: 'channel', in: 'path' }, description: 'Channel id or slug' }) }),
    query: ThreadsQuery,
  },
  responses: {
    200: { description: 'A page of threads', content: { 'application/json': { schema: ThreadPage } } },
    ...problemResponses,
  },
});

export function registerThreadsApi(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(listThreads);
  app.get('/api/channels/:channel/threads', async (c) => {
    const queries = c.req.queries();
    const parsed = ThreadsQuery.safeParse(Object.fromEntries(Object.entries(queries).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v]))));
    if (!parsed.success) throw validationError('invalid-query', parsed.error.issues);
    const page = await c.var.services.chatThreads.list(c.var.principal, c.req.param('channel'), parsed.data);
    return c.json(page, 200);
  });
}
