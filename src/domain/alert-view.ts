import type { z } from '@hono/zod-openapi';
import type {
  Actor as ActorSchema,
  ChatAlert as ChatAlertSchema,
  StandardAlert as StandardAlertSchema,
  WorkflowStep as WorkflowStepSchema,
} from './alert-shapes.js';
import { isoTime as iso } from '../lib/iso-time.js';
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


export function toAlertView(
  row: AlertRow,
  attachments: AttachmentRow[],
  isRead: boolean,
  mediaUrl: (key: string) => string,
): AlertView {
  if (row.kind === 'chat') {
    return {
      id: row.id,
      channelId: row.channelId,
      message: row.message,
      createdAt: iso(row.createdAt),
      editedAt: row.updatedAt > row.createdAt ? iso(row.updatedAt) : null,
      author: row.authorJson ? JSON.parse(row.authorJson) : { id: '', name: 'unknown', bot: false, role: 'member' },
      replyTo: row.replyToJson ? JSON.parse(row.replyToJson) : null,
      attachments: attachments.map((a) => ({ url: mediaUrl(a.mediaKey), mime: a.mime })),
      isRead,
    };
  }
  return {
    id: row.id,
    channelId: row.channelId,
    title: row.title,
    level: row.level,
    emoji: row.emoji || null,
    message: row.message,
    fields: row.fieldsJson ? JSON.parse(row.fieldsJson) : [],
    linkUrl: row.linkUrl,
    linkText: row.linkText,
    source: row.source,
    actor: row.actorJson ? JSON.parse(row.actorJson) : null,
    workflow: row.workflowRunId
      ? {
          runId: row.workflowRunId,
          state: row.workflowState!,
          steps: row.workflowStepsJson ? JSON.parse(row.workflowStepsJson) : [],
          error: row.workflowError,
        }
      : null,
    attachments: attachments.map((a) => ({
      url: mediaUrl(a.mediaKey),
      mime: a.mime,
      type: a.kind,
      name: a.name,
      size: a.size,
    })),
    isRead,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

const q = JSON.stringify;
/** A character JSON.stringify would escape, or a surrogate (a lone one is escaped; a pair goes through q too, rarely). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Pushes a JSON string literal: the stored string itself between quotes when nothing in it needs escaping (no copy). */
function pushString(out: string[], v: string): void {
  if (NEEDS_ESCAPE.test(v)) out.push(q(v));
  else out.push('"', v, '"');
}

function pushNullable(out: string[], v: string | null): void {
  if (v === null) out.push('null');
  else pushString(out, v);
}

function pushAttachments(out: string[], attachments: AttachmentRow[], full: boolean, mediaUrl: (key: string) => string): void {
  out.push('[');
  for (let i = 0; i < attachments.length; i++) {
    const a = attachments[i]!;
    out.push(i === 0 ? '{"url":' : ',{"url":');
    pushString(out, mediaUrl(a.mediaKey));
    out.push(',"mime":');
    pushString(out, a.mime);
    if (full) {
      out.push(',"type":');
      pushString(out, a.kind);
      out.push(',"name":');
      pushNullable(out, a.name);
      out.push(',"size":', String(a.size));
    }
    out.push('}');
  }
  out.push(']');
}

/**
 * Pushes the pieces of `JSON.stringify(toAlertView(...))` onto `out`, for one
 * `join('')` per page: the stored JSON columns (fields, actor, steps, author,
 * reply) are spliced in instead of parsed and re-serialised, and stored
 * strings go in as they are. One flat string per page instead of a tree of
 * concatenations per alert: about half the rendering's CPU and a quarter less
 * garbage (README "Performance"). test/read-api/alert-json.test.ts holds the
 * two renderings equal.
 */
export function pushAlertJson(out: string[], row: AlertRow, attachments: AttachmentRow[], isRead: boolean, mediaUrl: (key: string) => string): void {
  out.push('{"id":');
  pushString(out, row.id);
  out.push(',"channelId":');
  pushString(out, row.channelId);
  if (row.kind === 'chat') {
    out.push(',"message":');
    pushNullable(out, row.message);
    out.push(',"createdAt":"', iso(row.createdAt), '","editedAt":');
    if (row.updatedAt > row.createdAt) out.push('"', iso(row.updatedAt), '"');
    else out.push('null');
    out.push(',"author":', row.authorJson ?? '{"id":"","name":"unknown","bot":false,"role":"member"}', ',"replyTo":', row.replyToJson ?? 'null', ',"attachments":');
    pushAttachments(out, attachments, false, mediaUrl);
    out.push(isRead ? ',"isRead":true}' : ',"isRead":false}');
    return;
  }
  out.push(',"title":');
  pushString(out, row.title);
  out.push(',"level":');
  pushString(out, row.level);
  out.push(',"emoji":');
  pushNullable(out, row.emoji || null);
  out.push(',"message":');
  pushNullable(out, row.message);
  out.push(',"fields":', row.fieldsJson ?? '[]', ',"linkUrl":');
  pushNullable(out, row.linkUrl);
  out.push(',"linkText":');
  pushNullable(out, row.linkText);
  out.push(',"source":');
  pushNullable(out, row.source);
  out.push(',"actor":', row.actorJson ?? 'null', ',"workflow":');
  if (row.workflowRunId) {
    out.push('{"runId":');
    pushString(out, row.workflowRunId);
    out.push(',"state":');
    pushString(out, row.workflowState!);
    out.push(',"steps":', row.workflowStepsJson ?? '[]', ',"error":');
    pushNullable(out, row.workflowError);
    out.push('}');
  } else out.push('null');
  out.push(',"attachments":');
  pushAttachments(out, attachments, true, mediaUrl);
  out.push(isRead ? ',"isRead":true' : ',"isRead":false', ',"createdAt":"', iso(row.createdAt), '","updatedAt":"', iso(row.updatedAt), '"}');
}
