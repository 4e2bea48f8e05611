import { z } from '@hono/zod-openapi';

/**
 * The two public shapes of an alert (standard and chat-connected), as the read API, the stream and
 * e-mails promise them. Zod schemas, named as the OpenAPI document names them: the one definition
 * the view types (alert-view.ts) and the API's document (src/http/schemas.ts) are both built from.
 */

const Field = z.object({ label: z.string(), value: z.string(), inline: z.boolean() });

export const Actor = z
  .object({
    name: z.string().optional(),
    email: z.string().optional(),
    id: z.string().optional(),
    plan: z.string().optional(),
    company: z.string().optional(),
    location: z.string().optional(),
    avatarUrl: z
      .string()
      .optional()
      .openapi({
        description:
          "Our copy of the actor's picture in the media store (MEDIA_PUBLIC_URL/<sha256>.<ext>), made after the alert is accepted from the sent avatarUrl or the public avatar service; absent until then, or when there is none. The sent URL is never returned.",
      }),
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

/** The silence that muted the alert's latest notification (docs/silences.md), or null. */
export const SilencedBy = z
  .object({ id: z.string(), comment: z.string() })
  .nullable()
  .openapi({ description: 'The silence that kept this alert from notifying anyone (docs/silences.md), or null.' });

const Person = z.object({ id: z.string().nullable(), name: z.string() });

/** The lifecycle members both shapes carry (docs/handling-alerts.md), after the spec's members. */
const LIFECYCLE = {
  status: z.enum(['open', 'acknowledged', 'resolved']).openapi({ description: 'Shared by the workspace: open → acknowledged → resolved, and back to open.' }),
  acknowledgedAt: z.string().nullable().openapi({ format: 'date-time' }),
  acknowledgedBy: Person.nullable().openapi({ description: 'The person who acknowledged it.' }),
  resolvedAt: z.string().nullable().openapi({ format: 'date-time' }),
  resolvedBy: Person.nullable().openapi({ description: 'A person, or a sender or integration as `{id: null, name: "<source>"}`.' }),
  snoozedUntil: z.string().nullable().openapi({ format: 'date-time', description: 'When the snooze ends (it has ended when this is past).' }),
  occurrences: z.number().int().openapi({ description: 'How many times the sender reported it: 1 for a new alert, + 1 for each POST with its dedupKey.' }),
  silencedBy: SilencedBy,
};

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
    ...LIFECYCLE,
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
    ...LIFECYCLE,
    thread: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .openapi({ description: 'The Discord thread or forum post the message belongs to (its current name); null for a message in the channel itself.' }),
    tags: z.array(z.string()).openapi({ description: "A forum post's applied tags, by name, on every message of the post; [] elsewhere." }),
    reactions: z
      .array(z.object({ emoji: z.string(), count: z.number().int() }))
      .openapi({ description: 'Reaction counts: a unicode emoji as the character, a custom one as `:name:`. No per-user data.' }),
  })
  .openapi('ChatAlert');
