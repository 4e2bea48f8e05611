import type { z } from '@hono/zod-openapi';
import type {
  Actor as ActorSchema,
  ChatAlert as ChatAlertSchema,
  StandardAlert as StandardAlertSchema,
  WorkflowStep as WorkflowStepSchema,
} from '../http/schemas.js';
import { isoTime as iso } from '../lib/iso-time.js';
import type { AlertRow, AttachmentRow } from './alert-store.js';

/**
 * Maps stored alert rows to the read API's two public shapes (standard and
 * chat-connected). The only place that knows both the stored columns and the
 * JSON the API promises, so the read API, the stream and e-mails agree. The
 * shapes are the zod schemas' (src/http/schemas.ts), the one definition the
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
const nul = (v: string | null) => (v === null ? 'null' : q(v));

/**
 * The same JSON as `JSON.stringify(toAlertView(...))`, built by splicing the
 * stored JSON columns (fields, actor, steps, author, reply) instead of parsing
 * and re-serialising them: on a 50-alert page that was most of the request.
 * test/read-api/alert-json.test.ts holds the two renderings equal.
 */
export function alertJson(row: AlertRow, attachments: AttachmentRow[], isRead: boolean, mediaUrl: (key: string) => string): string {
  if (row.kind === 'chat') {
    const atts = attachments.map((a) => `{"url":${q(mediaUrl(a.mediaKey))},"mime":${q(a.mime)}}`).join(',');
    return (
      `{"id":${q(row.id)},"channelId":${q(row.channelId)},"message":${nul(row.message)},"createdAt":"${iso(row.createdAt)}",` +
      `"editedAt":${row.updatedAt > row.createdAt ? `"${iso(row.updatedAt)}"` : 'null'},` +
      `"author":${row.authorJson ?? '{"id":"","name":"unknown","bot":false,"role":"member"}'},"replyTo":${row.replyToJson ?? 'null'},` +
      `"attachments":[${atts}],"isRead":${isRead}}`
    );
  }
  const atts = attachments
    .map((a) => `{"url":${q(mediaUrl(a.mediaKey))},"mime":${q(a.mime)},"type":${q(a.kind)},"name":${nul(a.name)},"size":${a.size}}`)
    .join(',');
  const workflow = row.workflowRunId
    ? `{"runId":${q(row.workflowRunId)},"state":${q(row.workflowState)},"steps":${row.workflowStepsJson ?? '[]'},"error":${nul(row.workflowError)}}`
    : 'null';
  return (
    `{"id":${q(row.id)},"channelId":${q(row.channelId)},"title":${q(row.title)},"level":${q(row.level)},"emoji":${row.emoji ? q(row.emoji) : 'null'},` +
    `"message":${nul(row.message)},"fields":${row.fieldsJson ?? '[]'},"linkUrl":${nul(row.linkUrl)},"linkText":${nul(row.linkText)},` +
    `"source":${nul(row.source)},"actor":${row.actorJson ?? 'null'},"workflow":${workflow},"attachments":[${atts}],"isRead":${isRead},` +
    `"createdAt":"${iso(row.createdAt)}","updatedAt":"${iso(row.updatedAt)}"}`
  );
}
