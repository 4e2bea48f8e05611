import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { SEARCH_LIMITS } from '../../domain/search-query.js';
import type { AppEnv } from '../env.js';
import { AlertPage, LevelQuery, PageLimitQuery, StatusQuery, TagQuery, ThreadQuery, problemResponses } from '../schemas.js';

const LEVEL_OF_QUERY = { info: 'INFO', success: 'SUCCESS', warning: 'WARNING', error: 'ERROR' } as const;

// q is checked by the use case (its emptiness, length and term count are
// rules of the query syntax); the schema documents it.
const SearchQuery = z.object({
  q: z.string({ message: 'q is required: the words to search for' }).openapi({
    description:
      `Words to find, all required. A trailing * makes a prefix (deploy*), "double quotes" make a phrase; every other character is ` +
      `literal text (there are no operators). At most ${SEARCH_LIMITS.maxQueryChars} characters and ${SEARCH_LIMITS.maxTerms} words or phrases.`,
    example: 'deploy* "payment failed"',
  }),
  channel: z.string().min(1).optional().openapi({ description: 'Only this channel (id or slug)' }),
  level: LevelQuery.openapi({ description: 'Only standard alerts of this level (no chat messages)' }),
  status: StatusQuery,
  thread: ThreadQuery,
  tag: TagQuery,
  cursor: z.string().optional().openapi({ description: 'The nextCursor of the previous page (opaque); omit for the first page.' }),
  limit: PageLimitQuery,
});

const searchRoute = createRoute({
  method: 'get',
  path: '/api/search',
  summary: 'Full-text search across the channels the token can see, newest first',
  description:
    'Searches titles, messages, field labels and values, workflow steps and errors, link texts, sources, actors (name, e-mail, company) ' +
    'and chat messages with their authors and the name of their Discord thread or forum post. Same visibility rule and alert shapes as the channel list.',
  security: [{ bearerAuth: [] }],
  request: { query: SearchQuery },
  responses: {
    200: { description: 'A page of matching alerts', content: { 'application/json': { schema: AlertPage } } },
    ...problemResponses,
  },
});

export function registerSearch(app: OpenAPIHono<AppEnv>) {
  app.openapi(searchRoute, async (c) => {
    const q = c.req.valid('query');
    const page = await c.var.services.search.search(c.var.principal, {
      q: q.q,
      channel: q.channel,
      level: q.level ? LEVEL_OF_QUERY[q.level] : undefined,
      status: q.status,
      thread: q.thread,
      tag: q.tag,
      cursor: q.cursor,
      limit: q.limit,
    });
    return c.json(page, 200);
  });
}
