import { z } from 'zod';
import { formatBytes } from '../../lib/bytes.js';
import { MAX_ATTACHMENTS } from '../media.js';
import type { Actor, Field, WorkflowStep } from '../alert-view.js';
import { enrichActor } from './actor.js';
import { EMOJI_MAX_CHARS, resolveEmoji } from './emoji.js';

/**
 * Every limit of the webhook payload, in one place: the schema below enforces
 * them, and the OpenAPI descriptions, problem pages and README quote them from
 * here. Those the spec sets (title, emoji, message, linkUrl, linkText, field
 * label and value) carry its numbers; the rest are decided here.
 */
export const PAYLOAD_LIMITS = {
  title: 200,
  emoji: EMOJI_MAX_CHARS,
  message: 5_000,
  linkUrl: 2_000,
  linkText: 100,
  source: 200,
  fieldLabel: 100,
  fieldValue: 1_000,
  fields: 25,
  attachments: MAX_ATTACHMENTS, // shared with the multipart count in src/media
  attachmentName: 200,
  metadataBytes: 16 * 1024,
  actorText: 200,
  email: 320,
  runId: 200,
  steps: 50,
  stepName: 200,
  stepInfo: 1_000,
  workflowError: 10_000,
} as const;

const LIMITS = PAYLOAD_LIMITS;

const httpUrl = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} must be at most ${max} characters`)
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${what} must be an absolute http or https URL`);

const text = (max: number, what: string) => z.string().max(max, `${what} must be at most ${max} characters`);

const FieldInput = z
  .object({
    label: text(LIMITS.fieldLabel, 'label').min(1, 'label must not be empty').optional(),
    name: text(LIMITS.fieldLabel, 'name').min(1, 'name must not be empty').optional(),
    value: z.union([text(LIMITS.fieldValue, 'value'), z.number(), z.boolean()], {
      message: 'value must be a string, a number or a boolean',
    }),
    inline: z.boolean().default(false),
  })
  .superRefine((f, ctx) => {
    if (f.label === undefined && f.name === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a field needs a label (or name)', path: ['label'] });
    }
  })
  .transform((f): Field => ({ label: (f.label ?? f.name)!, value: String(f.value), inline: f.inline }));

const actorText = (what: string) => text(LIMITS.actorText, what).min(1, `${what} must not be empty`);

const ActorObject = z
  .object({
    name: actorText('name').optional(),
    email: z.email('email must be an e-mail address').max(LIMITS.email).optional(),
    id: z.union([actorText('id'), z.number().transform(String)]).optional(),
    plan: actorText('plan').optional(),
    company: actorText('company').optional(),
    location: actorText('location').optional(),
    avatarUrl: httpUrl(LIMITS.linkUrl, 'avatarUrl').optional(),
    url: httpUrl(LIMITS.linkUrl, 'url').optional(),
  })
  .refine((a) => Object.values(a).some((v) => v !== undefined), 'actor needs at least one of name, email, id, plan, company, location, avatarUrl, url');

const ActorInput = z.union([
  text(LIMITS.actorText, 'actor').min(1, 'actor must not be empty').transform((s): Actor => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim()) ? { email: s.trim() } : { name: s.trim() })),
  ActorObject,
]);

export const AttachmentInput = z.object({
  url: httpUrl(LIMITS.linkUrl, 'url').optional(),
  type: z.enum(['image', 'video', 'audio'], { message: 'type must be image, video or audio' }).optional(),
  name: text(LIMITS.attachmentName, 'name').optional(),
  data: z.string().optional().meta({ description: 'The file as base64, optionally as a `data:<type>;base64,` URL' }),
});
export type AttachmentInput = z.infer<typeof AttachmentInput>;

const StepInput = z.object({
  name: z.string().min(1, 'a step needs a name').max(LIMITS.stepName),
  state: z.enum(['pending', 'running', 'done', 'failed', 'skipped'], {
    message: 'step state must be pending, running, done, failed or skipped',
  }),
  seconds: z.number().min(0).optional(),
  info: text(LIMITS.stepInfo, 'info').optional(),
});

const WorkflowInput = z.object({
  runId: z.string().min(1, 'runId must not be empty').max(LIMITS.runId),
  state: z.enum(['running', 'passed', 'failed'], { message: 'state must be running, passed or failed' }),
  steps: z.array(StepInput).max(LIMITS.steps, `at most ${LIMITS.steps} steps`),
  error: text(LIMITS.workflowError, 'error').optional(),
});

/**
 * The webhook body. Unknown keys are ignored (zod strips them). Transforms
 * normalise on ingest: level to upper case, emoji names to characters, fields
 * to strings, `user` to `actor` with what an e-mail alone tells.
 */
export const WebhookPayload = z
  .object({
    title: z
      .string({ message: 'title is required and must be a string' })
      .min(1, 'title must not be empty')
      .max(LIMITS.title, `title must be at most ${LIMITS.title} characters`)
      .refine((t) => t.length === 0 || t.trim() !== '', 'title must not be blank'),
    level: z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['info', 'success', 'warning', 'error'], { message: 'level must be info, success, warning or error' }))
      .default('info'),
    // Resolved here, once: a name or shortcode becomes its character, an unknown name ''.
    emoji: z
      .string()
      .meta({
        description: `At most ${LIMITS.emoji} characters: emoji characters, a recognised name (rocket) or a :name: shortcode, whatever their length; unknown names and shortcodes are dropped.`,
      })
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return '';
        const r = resolveEmoji(v);
        if (r.ok) return r.emoji;
        if (r.reason === 'too-long') {
          ctx.addIssue({
            code: 'too_big',
            maximum: EMOJI_MAX_CHARS,
            origin: 'string',
            inclusive: true,
            input: v,
            message: `emoji must be at most ${EMOJI_MAX_CHARS} characters (an emoji, a name such as rocket, or :rocket:)`,
          });
        } else {
          ctx.addIssue({ code: 'custom', input: v, message: 'emoji must be emoji only, a name such as rocket, or :rocket: (no other text)' });
        }
        return z.NEVER;
      }),
    message: text(LIMITS.message, 'message').optional(),
    fields: z.array(FieldInput).max(LIMITS.fields, `at most ${LIMITS.fields} fields`).optional(),
    linkUrl: httpUrl(LIMITS.linkUrl, 'linkUrl').optional(),
    linkText: text(LIMITS.linkText, 'linkText').optional(),
    source: text(LIMITS.source, 'source').optional(),
    // The parsed JSON object is kept as sent: a record schema would copy it key
    // by key, and copying a `__proto__` key sets the copy's prototype instead.
    metadata: z
      .custom<Record<string, unknown>>((m) => typeof m === 'object' && m !== null && !Array.isArray(m), { message: 'metadata must be a JSON object' })
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= LIMITS.metadataBytes, `metadata must serialise to at most ${LIMITS.metadataBytes} bytes`)
      .meta({ type: 'object', additionalProperties: true, description: `Kept for context, not displayed; at most ${formatBytes(LIMITS.metadataBytes)} as JSON.` })
      .optional(),
    actor: ActorInput.optional(),
    user: ActorInput.optional(),
    attachments: z.array(AttachmentInput).max(LIMITS.attachments, `at most ${LIMITS.attachments} attachments`).optional(),
    workflow: WorkflowInput.optional(),
  })
  .transform((p) => {
    const actor = p.actor ?? p.user;
    return {
      title: p.title,
      level: p.level.toUpperCase() as 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR',
      emoji: p.emoji,
      message: p.message ?? null,
      fields: p.fields ?? [],
      linkUrl: p.linkUrl ?? null,
      linkText: p.linkUrl ? (p.linkText ?? 'View') : (p.linkText ?? null),
      source: p.source ?? null,
      metadata: p.metadata ?? null,
      actor: actor ? enrichActor(actor) : null,
      attachments: p.attachments ?? [],
      workflow: p.workflow
        ? { ...p.workflow, steps: p.workflow.steps as WorkflowStep[], error: p.workflow.error ?? null }
        : null,
    };
  });

export type WebhookAlert = z.output<typeof WebhookPayload>;
