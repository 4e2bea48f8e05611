import { z } from 'zod';
import { formatBytes } from '../../lib/bytes.js';
import type { Actor, Field, WorkflowStep } from '../alert-view.js';
import { enrichActor } from './actor.js';
import { EMOJI_MAX_CHARS, EMOJI_MAX_SHORTCODE_CHARS, resolveEmoji } from './emoji.js';
import { PAYLOAD_LIMITS } from './payload-limits.js';
import * as fast from './payload-fast.js';

export { PAYLOAD_LIMITS } from './payload-limits.js';

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
 * A member of the webhook body: its zod schema, and the same rule checked by
 * hand (payload-fast.ts) for the common values, which answers the schema's
 * output or NOT_COVERED (zod then decides, and words the errors).
 */
interface Member<S extends z.ZodType> {
  schema: S;
  fast: fast.FastCheck<z.output<S>>;
}
const member = <S extends z.ZodType>(schema: S, check: fast.FastCheck<z.output<S>>): Member<S> => ({ schema, fast: check });
const optionalText = (max: number, what: string) => member(text(max, what).optional(), fast.optionalText(max));
const optionalUrl = (max: number, what: string) => member(httpUrl(max, what).optional(), fast.optionalHttpUrl(max));

/**
 * The webhook body's members, each added once: the schema below is built from
 * this table, and so is the zod-free check of common bodies
 * (`parseCommonPayload`). Unknown keys are ignored (zod strips them).
 */
const MEMBERS = {
  title: member(
    z
      .string({ message: 'title is required and must be a string' })
      .min(1, 'title must not be empty')
      .max(LIMITS.title, `title must be at most ${LIMITS.title} characters`)
      .refine((t) => t.length === 0 || t.trim() !== '', 'title must not be blank'),
    fast.title,
  ),
  level: member(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['info', 'success', 'warning', 'error'], { message: 'level must be info, success, warning or error' }))
      .default('info'),
    fast.level,
  ),
  // Resolved here, once: a name or shortcode becomes its character, an unknown name ''.
  emoji: member(
    z
      .string()
      .meta({
        description: `At most ${LIMITS.emoji} characters: emoji characters, a recognised name (rocket), or a :name: shortcode of a recognised name or of GitHub's and Slack's common set (:rotating_light:) up to ${EMOJI_MAX_SHORTCODE_CHARS} characters; unknown names and shortcodes are dropped.`,
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
    fast.emoji,
  ),
  message: optionalText(LIMITS.message, 'message'),
  fields: member(z.array(FieldInput).max(LIMITS.fields, `at most ${LIMITS.fields} fields`).optional(), fast.fields),
  linkUrl: optionalUrl(LIMITS.linkUrl, 'linkUrl'),
  linkText: optionalText(LIMITS.linkText, 'linkText'),
  source: optionalText(LIMITS.source, 'source'),
  // The parsed JSON object is kept as sent: a record schema would copy it key
  // by key, and copying a `__proto__` key sets the copy's prototype instead.
  metadata: member(
    z
      .custom<Record<string, unknown>>((m) => typeof m === 'object' && m !== null && !Array.isArray(m), { message: 'metadata must be a JSON object' })
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= LIMITS.metadataBytes, `metadata must serialise to at most ${LIMITS.metadataBytes} bytes`)
      .meta({ type: 'object', additionalProperties: true, description: `Kept for context, not displayed; at most ${formatBytes(LIMITS.metadataBytes)} as JSON.` })
      .optional(),
    fast.metadata,
  ),
  actor: member(ActorInput.optional(), fast.actor),
  user: member(ActorInput.optional(), fast.actor),
  // Bodies with files or a run are rarer: the schema alone checks them.
  attachments: member(z.array(AttachmentInput).max(LIMITS.attachments, `at most ${LIMITS.attachments} attachments`).optional(), fast.onlyAbsent),
  workflow: member(WorkflowInput.optional(), fast.onlyAbsent),
  // De-duplication (docs/handling-alerts.md): the key, and the status it reports. Without a key a
  // `status` is ignored as unknown keys are, so senders that already post one keep working.
  dedupKey: member(
    text(LIMITS.dedupKey, 'dedupKey')
      .min(1, 'dedupKey must not be empty')
      .meta({ description: `At most ${LIMITS.dedupKey} characters. While the alert stored under this key is not resolved, a POST with it updates that alert in place (same alertId, occurrences + 1).` })
      .optional(),
    fast.dedupKey,
  ),
  status: member(
    z
      .unknown()
      .meta({ type: 'string', enum: ['open', 'resolved'], description: 'Only with dedupKey: `open` (the default) or `resolved`, which resolves the alert stored under the key. Ignored without dedupKey.' })
      .optional(),
    fast.anything,
  ),
};

type Members = typeof MEMBERS;
const MEMBER_LIST = Object.entries(MEMBERS) as [keyof Members, Member<z.ZodType>][];
const PayloadObject = z
  .object(Object.fromEntries(MEMBER_LIST.map(([key, m]) => [key, m.schema])) as { [K in keyof Members]: Members[K]['schema'] })
  .superRefine((p, ctx) => {
    if (p.dedupKey === undefined) return;
    if (p.status !== undefined && !fast.SENDER_STATUSES.includes(p.status)) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'status must be open or resolved (it applies with a dedupKey)' });
    }
    if (p.workflow !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['dedupKey'], message: 'dedupKey cannot be combined with workflow: a run is already keyed by its runId' });
    }
  });
type CheckedPayload = z.output<typeof PayloadObject>;

/**
 * The alert from a checked body, whichever check passed it. Normalises on
 * ingest: level to upper case, fields to strings, `user` to `actor` (`actor`
 * wins when both are sent) with what an e-mail alone tells.
 */
function toWebhookAlert(p: CheckedPayload) {
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
    workflow: p.workflow ? { ...p.workflow, steps: p.workflow.steps as WorkflowStep[], error: p.workflow.error ?? null } : null,
    dedupKey: p.dedupKey ?? null,
    /** A resolve of the alert under `dedupKey` (never true without one). */
    resolves: p.dedupKey !== undefined && p.status === 'resolved',
  };
}

/** The webhook body: the members' schemas, then the alert they make. */
export const WebhookPayload = PayloadObject.transform(toWebhookAlert);

export type WebhookAlert = z.output<typeof WebhookPayload>;

/**
 * The body checked without zod (the schema costs a few µs of a webhook's CPU
 * for a typical body, the members' hand checks a fraction of it): exactly
 * what `WebhookPayload` answers for a body every member's check covers, and
 * `undefined` for anything else, so zod decides and words the errors. A
 * differential test (test/webhook/payload-fast.test.ts) holds the two to the
 * same answers on generated bodies.
 */
export function parseCommonPayload(input: unknown): WebhookAlert | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const body = input as Record<string, unknown>;
  const checked: Record<string, unknown> = {};
  for (const [key, m] of MEMBER_LIST) {
    const value = m.fast(body[key]);
    if (value === fast.NOT_COVERED) return undefined;
    if (value !== undefined) checked[key] = value;
  }
  // The schema's cross-member rule (a workflow never reaches here: only the schema checks it).
  if (checked.dedupKey !== undefined && checked.status !== undefined && !fast.SENDER_STATUSES.includes(checked.status)) return undefined;
  return toWebhookAlert(checked as CheckedPayload);
}
