import { z } from '@hono/zod-openapi';
import { ChatAlert, StandardAlert } from '../domain/alert-shapes.js';
import { AUTH_FAILURE_REASONS } from '../domain/errors.js';

// The alert shapes are the domain's (the read API, the stream and e-mails promise the same JSON);
// the API's document lists them with the rest.
export { Actor, ChatAlert, StandardAlert, WorkflowStep } from '../domain/alert-shapes.js';

/** Response and error schemas shared by the OpenAPI document and the routes. */

/** Page size of the alert list (spec: 1 to 100, default 50). */
export const LIST_PAGE_SIZE = { min: 1, max: 100, default: 50 } as const;

const LEVELS = ['info', 'success', 'warning', 'error'] as const;

/** `limit` of every paginated list (the channel's alerts, search): one rule, one message. */
export const PageLimitQuery = z.coerce
  .number({ message: `limit must be a whole number from ${LIST_PAGE_SIZE.min} to ${LIST_PAGE_SIZE.max}` })
  .int(`limit must be a whole number from ${LIST_PAGE_SIZE.min} to ${LIST_PAGE_SIZE.max}`)
  .min(LIST_PAGE_SIZE.min, `limit must be at least ${LIST_PAGE_SIZE.min}`)
  .max(LIST_PAGE_SIZE.max, `limit must be at most ${LIST_PAGE_SIZE.max}`)
  .default(LIST_PAGE_SIZE.default)
  .openapi({ type: 'integer', minimum: LIST_PAGE_SIZE.min, maximum: LIST_PAGE_SIZE.max, default: LIST_PAGE_SIZE.default });

/** `level` filter of the lists: case-insensitive, one of the four levels. */
export const LevelQuery = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(LEVELS, { message: `level must be one of ${LEVELS.join(', ')}` }))
  .optional()
  .openapi({ type: 'string', enum: [...LEVELS] });

/** The status filter, checked by the use case (parseStatusFilter) so its 400 names the parameter. */
export const StatusQuery = z
  .string()
  .optional()
  .openapi({ description: 'Only alerts with one of these statuses, comma-separated: open, acknowledged, resolved', example: 'open,acknowledged' });

/** A Discord thread id (a snowflake), as a message shows it in `thread.id`. */
export const THREAD_ID_PATTERN = /^[0-9]{17,20}$/;

/** `thread` filter of the lists: one Discord thread's (or forum post's) messages. */
export const ThreadQuery = z
  .string()
  .regex(THREAD_ID_PATTERN, 'thread must be a Discord thread id (the thread.id of a message)')
  .optional()
  .openapi({ description: "Only this thread's or forum post's messages: the `thread.id` a message shows. A thread that does not exist gives an empty page.", example: '1234567890123456789' });

/** `tag` filter: messages of forum posts with this tag applied (by name, exact). */
export const TagQuery = z
  .string()
  .min(1, 'tag must not be empty')
  .max(100, 'tag must be at most 100 characters')
  .regex(/^\P{Cc}*$/u, 'tag must not contain control characters')
  .optional()
  .openapi({ description: 'Only messages of forum posts with this tag applied (by name, exact).' });

export const Problem = z
  .object({
    type: z.string().url().openapi({ example: 'http://localhost:3000/problems/not-found' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    error: z.string().openapi({ description: 'Legacy field: the same text as title.' }),
    details: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .openapi('Problem', { description: 'RFC 9457 problem document (application/problem+json).' });

export const AuthFailure = z
  .object({
    error: z.literal('Unauthorized'),
    reason: z.enum(AUTH_FAILURE_REASONS),
    message: z.string(),
    docs: z.string().url(),
  })
  .openapi('AuthFailure');

export const Channel = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    icon: z.string(),
    isPrivate: z.boolean(),
    webhookToken: z.string(),
    chat: z
      .object({
        platform: z.literal('discord'),
        guildId: z.string().nullable(),
        guildName: z.string().nullable(),
        channelId: z.string(),
        channelName: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: 'Set when the channel mirrors a Discord channel; its alerts then have the chat shape.' }),
    _count: z.object({ alerts: z.number().int().openapi({ description: "The calling user's unread count." }) }),
  })
  .openapi('Channel');

const AnyAlert = z.union([StandardAlert, ChatAlert]);

export const AlertPage = z
  .object({ alerts: z.array(AnyAlert), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('AlertPage');

export const SingleAlert = z
  .union([
    StandardAlert.extend({ channelName: z.string(), channelSlug: z.string() }),
    ChatAlert.extend({ channelName: z.string(), channelSlug: z.string() }),
  ])
  .openapi('AlertWithChannel');

export const problemResponses = {
  400: { description: 'Invalid input', content: { 'application/problem+json': { schema: Problem } } },
  401: { description: 'Missing or invalid Bearer token', content: { 'application/json': { schema: AuthFailure } } },
  404: { description: 'Not found or not visible to the token', content: { 'application/problem+json': { schema: Problem } } },
  429: { description: 'Rate limited; see Retry-After', content: { 'application/problem+json': { schema: Problem } } },
} as const;

/** A read-only token asked to change an alert for everyone (status, snooze) or delete one. */
export const readOnlyResponse = {
  403: {
    description: 'The token is read-only (problem type `read-only-token`): it may mark alerts read, nothing more',
    content: { 'application/problem+json': { schema: Problem } },
  },
} as const;
