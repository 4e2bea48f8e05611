import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { AppError } from '../../domain/errors.js';
import { DEFAULT_LIVE_OPTIONS, EVENT_RETENTION_DAYS } from '../../notify/live-stream.js';
import type { AppEnv } from '../env.js';
import { problemResponses } from '../schemas.js';
import { validationError } from '../validation.js';

const EVENT_ID = /^\d{1,15}$/;

const StreamQuery = z.object({
  channel: z.string().min(1).optional().openapi({ description: 'Only this channel (id or slug). 404 if you cannot see it.' }),
  lastEventId: z
    .string()
    .optional()
    .openapi({ description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header (EventSource polyfills).' }),
});

const STREAM_DESCRIPTION = `Server-Sent Events for the channels the token's user can see (same rule as the read API).

Events (\`event:\` line):
- \`alert.created\`, \`alert.updated\` (workflow progress, Discord edits): \`data\` is the alert as \`GET /api/channels/{channel}/alerts\` renders it for you, \`isRead\` included, in its current state.
- \`alert.deleted\`: \`data\` is \`{"id": "...", "channelId": "..."}\`.
- \`resync\`: the events you asked to resume from are gone (pruned after ${EVENT_RETENTION_DAYS} days): refetch the lists.
- \`shutdown\`: the server is shutting down; the stream ends after it. Reconnect after \`retryMs\` with \`Last-Event-ID\`: nothing is missed.
- \`read.updated\`: your read state changed in a channel (you marked read through the API, the dashboard or another client): \`data\` is \`{"channelId": "...", "unread": 3}\`, your unread count there now (the channel list's \`_count.alerts\`). Sent only to the streams of the user who read; it has no \`id:\` (it is not in the change log), so it never moves \`Last-Event-ID\`; after a reconnect, refetch the counts.

Every alert event has an \`id:\`; reconnect with \`Last-Event-ID\` (EventSource does this by itself) to receive what you missed, in order and without duplicates. Without it the stream starts with live events only. A comment line (\`: heartbeat\`) is sent every ${DEFAULT_LIVE_OPTIONS.heartbeatMs / 1000} s so proxies keep the connection open; \`retry:\` suggests a reconnection delay.`;

/** GET /api/stream: the live stream (SSE). The engine is src/notify/live-stream.ts; this is only the HTTP side. */
export function registerStream(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/stream',
    summary: 'Live stream of alert changes (Server-Sent Events)',
    description: STREAM_DESCRIPTION,
    security: [{ bearerAuth: [] }],
    request: {
      query: StreamQuery,
      headers: z.object({
        'last-event-id': z.string().optional().openapi({ description: 'The id of the last event received; the stream resumes after it.' }),
      }),
    },
    responses: {
      200: {
        description: 'An endless text/event-stream',
        content: {
          'text/event-stream': {
            schema: z.string().openapi({
              example: 'retry: 3000\n\nevent: alert.created\ndata: {"id":"alt_…","channelId":"ch_…","title":"Deploy api failed","level":"ERROR","isRead":false,…}\nid: 42\n\n: heartbeat\n\n',
            }),
          },
        },
      },
      400: problemResponses[400],
      401: problemResponses[401],
      404: problemResponses[404],
      429: problemResponses[429],
    },
  });

  app.get('/api/stream', async (c) => {
    const { live, readApi } = c.var.services;
    const principal = c.var.principal;
    const parsed = StreamQuery.safeParse(c.req.query());
    if (!parsed.success) throw validationError('invalid-query', parsed.error.issues);
    const rawLast = c.req.header('last-event-id') ?? parsed.data.lastEventId;
    let lastEventId: number | undefined;
    if (rawLast !== undefined && rawLast.trim() !== '') {
      if (!EVENT_ID.test(rawLast.trim())) {
        throw new AppError('invalid-query', 'Last-Event-ID must be the id of an event of this stream (a whole number)', {
          details: [{ code: 'invalid_format', message: 'must be a whole number', path: ['lastEventId'] }],
        });
      }
      lastEventId = Number(rawLast.trim());
    }
    // Resolved before the stream starts so an invisible channel is an ordinary 404.
    const channelId = parsed.data.channel ? (await readApi.resolveChannel(principal, parsed.data.channel)).id : undefined;
    const sub = await live.open(principal, { lastEventId, channelId });
    c.header('X-Accel-Buffering', 'no'); // nginx: do not buffer the stream
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => sub.close());
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), live.options.heartbeatMs);
      try {
        await stream.write(`retry: ${live.options.retryMs}\n\n`);
        for await (const ev of sub) {
          if (stream.aborted) break;
          await stream.writeSSE(ev);
        }
      } finally {
        clearInterval(heartbeat);
        sub.close();
      }
    });
  });
}
