import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ID_PATTERN } from '../../lib/ids.js';
import { jsonText, parseJson, readBodyCapped, requireBodyType } from '../body.js';
import type { AppEnv } from '../env.js';
import { parsePageQuery } from '../page-query.js';
import { plainJson } from '../plain-response.js';
import { rateHeaders } from '../rate-limit.js';
import { AlertPage, Channel, LevelQuery, PageLimitQuery, SingleAlert, StatusQuery, ThreadQuery, problemResponses, readOnlyResponse } from '../schemas.js';
import { requireWriter, type Principal } from '../../domain/tokens.js';
import { validationError } from '../validation.js';

/** PATCH and mark-all-read bodies are a few bytes; anything near this is not one of them. */
const MAX_READ_API_BODY_BYTES = 16 * 1024;

const security = [{ bearerAuth: [] }];

/** The mark-all-read answer: the channels it touched (exported for the tests' typed bodies). */
export const MarkedAllRead = z.object({ success: z.literal(true), channelIds: z.array(z.string()) });

const LEVEL_OF_QUERY = { info: 'INFO', success: 'SUCCESS', warning: 'WARNING', error: 'ERROR' } as const;

const AlertIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'Alert id' }),
});

/** The page's query; exported for the differential test of its zod-free check (src/http/page-query.ts). */
export const ListQuery = z.object({
  cursor: z
    .string()
    .regex(ID_PATTERN, 'cursor must be an alert id (the nextCursor of the previous page)')
    .optional()
    .openapi({ description: 'The nextCursor of the previous page; omit for the first page.' }),
  limit: PageLimitQuery,
  level: LevelQuery,
  status: StatusQuery,
  after: z
    .string()
    .regex(ID_PATTERN, 'after must be an alert id')
    .optional()
    .openapi({ description: 'Only alerts strictly newer than this alert id (polling). Combine with cursor to page through them.' }),
  thread: ThreadQuery,
  order: z
    .enum(['desc', 'asc'], { message: 'order must be desc or asc' })
    .optional()
    .openapi({
      description:
        'desc: newest first (default); asc: oldest first, as a thread reads. A nextCursor continues in the order it was given with; ' +
        'with after, asc reads what came since in the order it happened.',
    }),
});

const listChannels = createRoute({
  method: 'get',
  path: '/api/channels',
  summary: 'List the channels the token can see, with your unread counts',
  security,
  responses: {
    200: { description: 'Channels', content: { 'application/json': { schema: z.array(Channel) } } },
    401: problemResponses[401],
    429: problemResponses[429],
  },
});

const listAlerts = createRoute({
  method: 'get',
  path: '/api/channels/{channel}/alerts',
  summary: 'List alerts of a channel, newest first (or oldest first with order=asc)',
  security,
  request: {
    params: z.object({ channel: z.string().openapi({ param: { name: 'channel', in: 'path' }, description: 'Channel id or slug' }) }),
    query: ListQuery,
  },
  responses: {
    200: { description: 'A page of alerts', content: { 'application/json': { schema: AlertPage } } },
    ...problemResponses,
  },
});

const getAlert = createRoute({
  method: 'get',
  path: '/api/alerts/{id}',
  summary: "Get one alert, with its channel's name and slug",
  security,
  request: { params: AlertIdParam },
  responses: {
    200: { description: 'The alert', content: { 'application/json': { schema: SingleAlert } } },
    401: problemResponses[401],
    404: problemResponses[404],
    429: problemResponses[429],
  },
});

/** PATCH's body: read state for the caller, and the lifecycle shared by the workspace; at least one member. */
const PatchAlertBody = z
  .object({
    isRead: z.boolean({ message: 'isRead must be true or false' }).optional().openapi({ description: 'Read state, for the calling user only' }),
    status: z
      .enum(['open', 'acknowledged', 'resolved'], { message: 'status must be open, acknowledged or resolved' })
      .optional()
      .openapi({ description: 'For everyone in the workspace: acknowledge, resolve, or reopen (open)' }),
    snoozedUntil: z
      .union([z.iso.datetime({ offset: true, message: 'snoozedUntil must be an ISO 8601 date-time (or null)' }), z.null()], {
        message: 'snoozedUntil must be an ISO 8601 date-time (or null)',
      })
      .optional()
      .openapi({ description: 'Snooze until this time (in the future, at most 30 days ahead), or null to end the snooze' }),
  })
  .refine((b) => b.isRead !== undefined || b.status !== undefined || b.snoozedUntil !== undefined, {
    message: 'the body needs isRead, status or snoozedUntil',
    path: ['isRead'],
  });

const patchAlert = createRoute({
  method: 'patch',
  path: '/api/alerts/{id}',
  summary: "Mark an alert read or unread for the calling user, or change its status or snooze for everyone",
  description:
    'Any user who can read the alert may change its status (a member can acknowledge). Each change is recorded in the alert\'s history ' +
    '(GET /api/alerts/{id}/history) and streamed as `alert.updated`. Asking for the status the alert has changes nothing.',
  security,
  request: {
    params: AlertIdParam,
    body: { required: true, content: { 'application/json': { schema: PatchAlertBody } } },
  },
  responses: {
    200: { description: 'The updated alert', content: { 'application/json': { schema: SingleAlert } } },
    ...problemResponses,
    ...readOnlyResponse,
  },
});

export const AlertHistoryEntry = z
  .object({
    id: z.number().int(),
    action: z.enum(['acknowledged', 'resolved', 'reopened', 'snoozed', 'unsnoozed']),
    actor: z.object({ id: z.string().nullable(), name: z.string() }).openapi({ description: 'A person, or a sender or integration (id null)' }),
    via: z.enum(['api', 'dashboard', 'email', 'push', 'cli', 'webhook', 'integration']),
    snoozedUntil: z.string().nullable().openapi({ format: 'date-time' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('AlertHistoryEntry');

const alertHistory = createRoute({
  method: 'get',
  path: '/api/alerts/{id}/history',
  summary: "An alert's status changes, oldest first: who, when and from where",
  security,
  request: { params: AlertIdParam },
  responses: {
    200: { description: 'The history', content: { 'application/json': { schema: z.object({ history: z.array(AlertHistoryEntry) }) } } },
    401: problemResponses[401],
    404: problemResponses[404],
    429: problemResponses[429],
  },
});

export const AlertDelivery = z
  .object({
    kind: z.enum(['route', 'email', 'push']),
    routeId: z.string().nullable().openapi({ description: 'The route (kind route), else null' }),
    target: z.string().openapi({ description: "Masked: the route's target hint, the recipient's masked e-mail address, or the push device's label" }),
    status: z.string().openapi({ description: 'pending, sending, sent, skipped or failed' }),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable().openapi({ description: "The receiver's last HTTP status (routes)" }),
    lastError: z.string().nullable().openapi({ description: 'Why the last attempt failed, or why the delivery was skipped' }),
    lastAttemptAt: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('AlertDelivery');

const alertDeliveries = createRoute({
  method: 'get',
  path: '/api/alerts/{id}/deliveries',
  summary: 'Where an alert went: its route, e-mail and push deliveries',
  description: "Route deliveries are shown to everyone who can read the alert; e-mail and push rows only to their recipient, and all of them to the workspace's owners and admins.",
  security,
  request: { params: AlertIdParam },
  responses: {
    200: { description: 'The deliveries', content: { 'application/json': { schema: z.object({ deliveries: z.array(AlertDelivery) }) } } },
    401: problemResponses[401],
    404: problemResponses[404],
    429: problemResponses[429],
  },
});

const MarkAllReadBody = z.object({ channelId: z.string().min(1).optional().openapi({ description: 'Channel id or slug' }) });

const markAllRead = createRoute({
  method: 'post',
  path: '/api/alerts/mark-all-read',
  summary: 'Mark every alert read, in one channel or in all visible channels',
  security,
  request: {
    body: {
      required: false,
      content: {
        'application/json': {
          schema: MarkAllReadBody,
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Done (idempotent)',
      content: { 'application/json': { schema: MarkedAllRead } },
    },
    ...problemResponses,
  },
});

export function registerReadApi(app: OpenAPIHono<AppEnv>) {
  // Bodies here are a few bytes. Read once, capped, and checked for their
  // type (a body in another format would slip past the JSON validator, which
  // only runs for JSON content types); the validators and mark-all-read then
  // read Hono's cached copy.
  app.use('/api/alerts/*', async (c, next) => {
    if (c.req.method === 'PATCH' || c.req.method === 'POST') {
      const bytes = await readBodyCapped(c.req.raw, MAX_READ_API_BODY_BYTES);
      if (bytes.byteLength > 0) requireBodyType(c.req.header('content-type'));
      // Hono keeps read bodies as promises in bodyCache (its types say otherwise).
      (c.req.bodyCache as Record<string, Promise<string>>).text = Promise.resolve(jsonText(bytes));
      if (c.req.method === 'PATCH') refuseReadOnlyChange(c.var.principal, jsonText(bytes));
    }
    if (c.req.method === 'DELETE') requireWriter(c.var.principal);
    await next();
  });

  app.openapi(listChannels, async (c) => c.json(await c.var.services.readApi.listChannels(c.var.principal), 200));

  // Registered for the document, checked by hand: the common queries without zod (page-query.ts), anything else by the schema.
  app.openAPIRegistry.registerPath(listAlerts);
  app.get('/api/channels/:channel/alerts', async (c) => {
    const queries = c.req.queries();
    let q = parsePageQuery(queries);
    if (!q) {
      // As the OpenAPI validator reads a query: a parameter given once is a string, repeated an array.
      const parsed = ListQuery.safeParse(Object.fromEntries(Object.entries(queries).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v]))));
      if (!parsed.success) throw validationError('invalid-query', parsed.error.issues);
      q = parsed.data;
    }
    // c.get, not c.var: Hono builds a new object of every variable on each c.var (the page is the read API's hot path).
    const bytes = await c.get('services').readApi.listAlertsJsonBytes(c.get('principal'), c.req.param('channel'), {
      limit: q.limit,
      cursor: q.cursor,
      after: q.after,
      level: q.level ? LEVEL_OF_QUERY[q.level] : undefined,
      status: q.status,
      thread: q.thread,
      ascending: q.order === 'asc',
    });
    // Pre-rendered JSON (the hot path); same document as AlertPage describes. Plain headers, its RateLimit-* included (src/http/auth.ts); the body as UTF-8 bytes.
    return plainJson(c, 200, bytes, rateHeaders(c.get('rate')));
  });

  // Registered before /api/alerts/{id} so "mark-all-read" is never read as an id.
  // Parsed by hand (the schema still documents it): the spec's "no body" must
  // also hold for clients that send Content-Type: application/json on every
  // request, which the generated JSON validator would reject as malformed.
  app.openAPIRegistry.registerPath(markAllRead);
  app.post('/api/alerts/mark-all-read', async (c) => {
    const raw = await c.req.text();
    let channelRef: string | undefined;
    if (raw.trim() !== '') {
      const parsed = MarkAllReadBody.safeParse(parseJson(raw));
      if (!parsed.success) throw validationError('invalid-body', parsed.error.issues);
      channelRef = parsed.data.channelId;
    }
    const { channelIds } = await c.var.services.readApi.markAllRead(c.var.principal, channelRef);
    return c.json({ success: true as const, channelIds }, 200);
  });

  app.openapi(getAlert, async (c) => {
    const alert = await c.var.services.readApi.getAlert(c.var.principal, c.req.valid('param').id);
    return c.json(alert, 200);
  });

  app.openapi(patchAlert, async (c) => {
    const { isRead, status, snoozedUntil } = c.req.valid('json');
    const { readApi, alertActions } = c.var.services;
    const id = c.req.valid('param').id;
    // The lifecycle first: it may refuse (a past snooze), and a refused request changes nothing.
    await alertActions.change(c.var.principal, id, { status, snoozedUntil: snoozedUntil === undefined || snoozedUntil === null ? snoozedUntil : Date.parse(snoozedUntil) }, 'api');
    const alert = isRead === undefined ? await readApi.getAlert(c.var.principal, id) : await readApi.setRead(c.var.principal, id, isRead);
    return c.json(alert, 200);
  });

  app.openapi(alertHistory, async (c) => {
    const rows = await c.var.services.alertActions.history(c.var.principal, c.req.valid('param').id);
    const history = rows.map((r) => ({
      id: r.id,
      action: r.action,
      actor: { id: r.actorId, name: r.actorName },
      via: r.via,
      snoozedUntil: r.snoozedUntil === null ? null : new Date(r.snoozedUntil).toISOString(),
      createdAt: new Date(r.createdAt).toISOString(),
    }));
    return c.json({ history }, 200);
  });

  app.openapi(alertDeliveries, async (c) => {
    const deliveries = await c.var.services.alertDeliveries.list(c.var.principal, c.req.valid('param').id);
    return c.json({ deliveries }, 200);
  });
}

/** Body keys of PATCH /api/alerts/{id} that change the alert for everyone: a read-only token may send isRead only. */
const SHARED_CHANGE_KEYS = ['status', 'snoozedUntil'];

/** A read-only token's PATCH that would change more than its own read state: 403 (a body that is not JSON is left to the validator's 400). */
function refuseReadOnlyChange(principal: Principal, body: string): void {
  if (!principal.readOnly) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return;
  }
  if (parsed !== null && typeof parsed === 'object' && SHARED_CHANGE_KEYS.some((key) => Object.hasOwn(parsed, key))) requireWriter(principal);
}
