import { z } from '@hono/zod-openapi';
import { AUTH_FAILURE_REASONS } from '../domain/errors.js';

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

const Field = z.object({ label: z.string(), value: z.string(), inline: z.boolean() });

export const Actor = z
  .object({
    name: z.string().optional(),
    email: z.string().optional(),
    id: z.string().optional(),
    plan: z.string().optional(),
    company: z.string().optional(),
    location: z.string().optional(),
    avatarUrl: z.string().optional(),
    url: z.string().optional(),
    initials: z.string().optional(),
  })
  .openapi('Actor');

export const WorkflowStep = z.object({
  name: z.string(),
  state: z.enum(['pending', 'running', 'done', 'failed', 'skipped']),
  seconds: z.number().optional(),
  info: z.string().optional(),
});

export const StandardAlert = z
  .object({
    id: z.string(),
    channelId: z.string(),
    title: z.string(),
    level: z.enum(['INFO', 'SUCCESS', 'WARNING', 'ERROR']),
    emoji: z.string().nullable(),
    message: z.string().nullable(),
    fields: z.array(Field),
    linkUrl: z.string().nullable(),
    linkText: z.string().nullable(),
    source: z.string().nullable(),
    actor: Actor.nullable(),
    workflow: z
      .object({ runId: z.string(), state: z.enum(['running', 'passed', 'failed']), steps: z.array(WorkflowStep), error: z.string().nullable() })
      .nullable(),
    attachments: z.array(
      z.object({ url: z.string(), mime: z.string(), type: z.enum(['image', 'video', 'audio']), name: z.string().nullable(), size: z.number().int() }),
    ),
    isRead: z.boolean(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    updatedAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Alert');

export const ChatAlert = z
  .object({
    id: z.string(),
    channelId: z.string(),
    message: z.string().nullable(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    editedAt: z.string().nullable(),
    author: z.object({ id: z.string(), name: z.string(), bot: z.boolean(), role: z.enum(['owner', 'bot', 'member']) }),
    replyTo: z.object({ messageId: z.string(), author: z.string(), excerpt: z.string() }).nullable(),
    attachments: z.array(z.object({ url: z.string(), mime: z.string() })),
    isRead: z.boolean(),
  })
  .openapi('ChatAlert');

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
