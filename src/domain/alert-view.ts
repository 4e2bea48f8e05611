import type { z } from '@hono/zod-openapi';
import type {
  Actor as ActorSchema,
  ChatAlert as ChatAlertSchema,
  StandardAlert as StandardAlertSchema,
  WorkflowStep as WorkflowStepSchema,
} from './alert-shapes.js';
import { isoTime as iso } from '../lib/iso-time.js';
import type { TextSink } from '../lib/utf8-writer.js';
import type { AlertRow, AttachmentRow } from './alert-store.js';

/**
 * Maps stored alert rows to the read API's two public shapes (standard and
 * chat-connected). The only place that knows both the stored columns and the
 * JSON the API promises, so the read API, the stream and e-mails agree. The
 * shapes are the zod schemas' (alert-shapes.ts), the one definition the
 * OpenAPI document is built from too.
 */

export type StandardAlert = z.infer<typeof StandardAlertSchema>;
export type ChatAlert = z.infer<typeof ChatAlertSchema>;
export type Actor = z.infer<typeof ActorSchema>;
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;
export type Field = StandardAlert['fields'][number];

export type AlertView = StandardAlert | ChatAlert;
type StandardAttachment = StandardAlert['attachments'][number];
type ChatAttachment = ChatAlert['attachments'][number];
type Workflow = NonNullable<StandardAlert['workflow']>;

/**
 * Each public shape is one member table below, in the JSON's member order.
 * The table gives both renderings: `toAlertView` (objects, for e-mails, the
 * stream and single alerts) and `pushAlertJson` (text pieces, for list
 * pages), so a new member is written once; the table's type is the zod
 * shape's (alert-shapes.ts), so a member missing here fails to compile.
 */
export function toAlertView(
  row: AlertRow,
  attachments: AttachmentRow[],
  isRead: boolean,
  mediaUrl: (key: string) => string,
): AlertView {
  const context: RenderContext = { attachments, isRead, mediaUrl };
  return row.kind === 'chat' ? CHAT_ALERT.value(row, context) : STANDARD_ALERT.value(row, context);
}

/**
 * Pushes the pieces of `JSON.stringify(toAlertView(...))` onto `out`, for one
 * `join('')` per page: the stored JSON columns (fields, actor, steps, author,
 * reply) are spliced in instead of parsed and re-serialised, and stored
 * strings go in as they are. One flat string per page instead of a tree of
 * concatenations per alert: about half the rendering's CPU and a quarter less
 * garbage (README "Performance"). test/read-api/alert-json.test.ts holds the
 * two renderings equal on generated rows.
 */
export function pushAlertJson(out: TextSink, row: AlertRow, attachments: AttachmentRow[], isRead: boolean, mediaUrl: (key: string) => string): void {
  const context: RenderContext = { attachments, isRead, mediaUrl };
  if (row.kind === 'chat') CHAT_ALERT.push(out, row, context);
  else STANDARD_ALERT.push(out, row, context);
}

/** What a member may need beyond its row. */
interface RenderContext {
  attachments: AttachmentRow[];
  isRead: boolean;
  mediaUrl: (key: string) => string;
}

/** One member of a public shape read from a source `S`: its value, and the same value as JSON text. */
interface Member<S, V> {
  value(source: S, context: RenderContext): V;
  push(out: TextSink, source: S, context: RenderContext): void;
}

type Members<S, Shape> = { [K in keyof Shape]-?: Member<S, Shape[K]> };

const q = JSON.stringify;
/** A character JSON.stringify would escape, or a surrogate (a lone one is escaped; a pair goes through q too, rarely). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Pushes a JSON string literal: the stored string itself between quotes when nothing in it needs escaping (no copy). */
function pushString(out: TextSink, v: string): void {
  if (NEEDS_ESCAPE.test(v)) out.push(q(v));
  else out.push('"', v, '"');
}

const text = <S, V extends string>(get: (source: S, context: RenderContext) => V): Member<S, V> => ({
  value: get,
  push: (out, source, context) => pushString(out, get(source, context)),
});

const nullableText = <S>(get: (source: S) => string | null): Member<S, string | null> => ({
  value: get,
  push: (out, source) => {
    const v = get(source);
    if (v === null) out.push('null');
    else pushString(out, v);
  },
});

const integer = <S>(get: (source: S) => number): Member<S, number> => ({ value: get, push: (out, source) => out.push(String(get(source))) });

const flag = <S>(get: (source: S, context: RenderContext) => boolean): Member<S, boolean> => ({
  value: get,
  push: (out, source, context) => out.push(get(source, context) ? 'true' : 'false'),
});

const time = <S>(get: (source: S) => number): Member<S, string> => ({
  value: (source) => iso(get(source)),
  push: (out, source) => out.push('"', iso(get(source)), '"'),
});

/** A column holding JSON text (written by the store from validated input): spliced in as it is, parsed only for the object. */
const storedJson = <S, V>(get: (source: S) => string | null, whenEmpty: string): Member<S, V> => ({
  value: (source) => JSON.parse(get(source) || whenEmpty) as V,
  push: (out, source) => out.push(get(source) || whenEmpty),
});

const orNull = <S, V>(present: (source: S) => boolean, member: Member<S, V>): Member<S, V | null> => ({
  value: (source, context) => (present(source) ? member.value(source, context) : null),
  push: (out, source, context) => {
    if (present(source)) member.push(out, source, context);
    else out.push('null');
  },
});

const list = <S, T, V>(items: (source: S, context: RenderContext) => T[], item: Member<T, V>): Member<S, V[]> => ({
  value: (source, context) => items(source, context).map((i) => item.value(i, context)),
  push: (out, source, context) => {
    const all = items(source, context);
    out.push('[');
    for (let i = 0; i < all.length; i++) {
      if (i > 0) out.push(',');
      item.push(out, all[i]!, context);
    }
    out.push(']');
  },
});

/** An object shape from its member table; the table's key order is the JSON's. */
function object<S, Shape>(members: Members<S, Shape>): Member<S, Shape> {
  const entries = Object.entries(members) as [string, Member<S, unknown>][];
  const keys = entries.map(([key]) => key);
  const prefixes = entries.map(([key], i) => `${i === 0 ? '{' : ','}${q(key)}:`);
  const parts = entries.map(([, member]) => member);
  return {
    value(source, context) {
      const view: Record<string, unknown> = {};
      for (let i = 0; i < parts.length; i++) view[keys[i]!] = parts[i]!.value(source, context);
      return view as Shape;
    },
    push(out, source, context) {
      for (let i = 0; i < parts.length; i++) {
        out.push(prefixes[i]!);
        parts[i]!.push(out, source, context);
      }
      out.push(parts.length === 0 ? '{}' : '}');
    },
  };
}

const nullableTime = <S>(get: (source: S) => number | null): Member<S, string | null> =>
  orNull((source: S) => get(source) !== null, time((source: S) => get(source)!));

/** The silence that muted the alert (docs/silences.md), from its id and copied comment. */
const silence = object<AlertRow, NonNullable<StandardAlert['silencedBy']>>({
  id: text((r) => r.silencedBy!),
  comment: text((r) => r.silenceComment ?? ''),
});

/** The lifecycle members, the same on both shapes (alert-shapes.ts). */
const LIFECYCLE_MEMBERS = {
  status: text((r: AlertRow) => r.status),
  acknowledgedAt: nullableTime((r: AlertRow) => r.acknowledgedAt),
  acknowledgedBy: storedJson<AlertRow, StandardAlert['acknowledgedBy']>((r) => r.acknowledgedByJson, 'null'),
  resolvedAt: nullableTime((r: AlertRow) => r.resolvedAt),
  resolvedBy: storedJson<AlertRow, StandardAlert['resolvedBy']>((r) => r.resolvedByJson, 'null'),
  snoozedUntil: nullableTime((r: AlertRow) => r.snoozedUntil),
  occurrences: integer((r: AlertRow) => r.occurrences),
  silencedBy: orNull((r: AlertRow) => r.silencedBy !== null, silence),
};

const attachmentUrl = text<AttachmentRow, string>((a, context) => context.mediaUrl(a.mediaKey));
const attachmentsOf = (_row: AlertRow, context: RenderContext) => context.attachments;
const isReadOf = (_row: AlertRow, context: RenderContext) => context.isRead;

const STANDARD_ALERT = object<AlertRow, StandardAlert>({
  id: text((r) => r.id),
  channelId: text((r) => r.channelId),
  title: text((r) => r.title),
  level: text((r) => r.level),
  emoji: nullableText((r) => r.emoji || null),
  message: nullableText((r) => r.message),
  fields: storedJson((r) => r.fieldsJson, '[]'),
  linkUrl: nullableText((r) => r.linkUrl),
  linkText: nullableText((r) => r.linkText),
  source: nullableText((r) => r.source),
  actor: storedJson((r) => r.actorJson, 'null'),
  workflow: orNull(
    (r) => Boolean(r.workflowRunId),
    object<AlertRow, Workflow>({
      runId: text((r) => r.workflowRunId!),
      state: text((r) => r.workflowState!),
      steps: storedJson((r) => r.workflowStepsJson, '[]'),
      error: nullableText((r) => r.workflowError),
    }),
  ),
  attachments: list(
    attachmentsOf,
    object<AttachmentRow, StandardAttachment>({
      url: attachmentUrl,
      mime: text((a) => a.mime),
      type: text((a) => a.kind),
      name: nullableText((a) => a.name),
      size: integer((a) => a.size),
    }),
  ),
  isRead: flag(isReadOf),
  createdAt: time((r) => r.createdAt),
  updatedAt: time((r) => r.updatedAt),
  ...LIFECYCLE_MEMBERS,
});

const UNKNOWN_AUTHOR = '{"id":"","name":"unknown","bot":false,"role":"member"}';

const CHAT_ALERT = object<AlertRow, ChatAlert>({
  id: text((r) => r.id),
  channelId: text((r) => r.channelId),
  message: nullableText((r) => r.message),
  createdAt: time((r) => r.createdAt),
  editedAt: orNull((r) => r.updatedAt > r.createdAt, time((r) => r.updatedAt)),
  author: storedJson((r) => r.authorJson, UNKNOWN_AUTHOR),
  replyTo: storedJson((r) => r.replyToJson, 'null'),
  attachments: list(attachmentsOf, object<AttachmentRow, ChatAttachment>({ url: attachmentUrl, mime: text((a) => a.mime) })),
  isRead: flag(isReadOf),
  ...LIFECYCLE_MEMBERS,
  thread: storedJson((r) => r.threadJson, 'null'),
  tags: storedJson((r) => r.tagsJson, '[]'),
  reactions: storedJson((r) => r.reactionsJson, '[]'),
});
