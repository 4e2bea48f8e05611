/**
 * Maps stored alert rows to the read API's two public shapes (standard and
 * chat-connected). The only place that knows both the column layout and the
 * JSON the API promises, so the read API, the stream and e-mails agree.
 */

export const ALERT_COLUMNS = `a.id, a.channel_id AS channelId, a.kind, a.title, a.level, a.emoji, a.message,
  a.fields_json AS fieldsJson, a.link_url AS linkUrl, a.link_text AS linkText, a.source,
  a.actor_json AS actorJson, a.workflow_run_id AS workflowRunId, a.workflow_state AS workflowState,
  a.workflow_steps_json AS workflowStepsJson, a.workflow_error AS workflowError,
  a.external_id AS externalId, a.author_json AS authorJson, a.reply_to_json AS replyToJson,
  a.activity_key AS activityKey, a.created_at AS createdAt, a.updated_at AS updatedAt`;

export interface AlertRow {
  id: string;
  channelId: string;
  kind: 'standard' | 'chat';
  title: string;
  level: 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR';
  emoji: string;
  message: string | null;
  fieldsJson: string | null;
  linkUrl: string | null;
  linkText: string | null;
  source: string | null;
  actorJson: string | null;
  workflowRunId: string | null;
  workflowState: 'running' | 'passed' | 'failed' | null;
  workflowStepsJson: string | null;
  workflowError: string | null;
  externalId: string | null;
  authorJson: string | null;
  replyToJson: string | null;
  activityKey: string;
  createdAt: number;
  updatedAt: number;
}

export interface AttachmentRow {
  alertId: string;
  position: number;
  mediaKey: string;
  mime: string;
  kind: 'image' | 'video' | 'audio';
  name: string | null;
  size: number;
}

export interface Field {
  label: string;
  value: string;
  inline: boolean;
}

export interface Actor {
  name?: string;
  email?: string;
  id?: string;
  plan?: string;
  company?: string;
  location?: string;
  avatarUrl?: string;
  url?: string;
  initials?: string;
}

export interface WorkflowStep {
  name: string;
  state: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
  seconds?: number;
  info?: string;
}

export interface StandardAlert {
  id: string;
  channelId: string;
  title: string;
  level: AlertRow['level'];
  emoji: string | null;
  message: string | null;
  fields: Field[];
  linkUrl: string | null;
  linkText: string | null;
  source: string | null;
  actor: Actor | null;
  workflow: { runId: string; state: string; steps: WorkflowStep[]; error: string | null } | null;
  attachments: { url: string; mime: string; type: string; name: string | null; size: number }[];
  isRead: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ChatAlert {
  id: string;
  channelId: string;
  message: string | null;
  createdAt: string;
  editedAt: string | null;
  author: { id: string; name: string; bot: boolean; role: 'owner' | 'bot' | 'member' };
  replyTo: { messageId: string; author: string; excerpt: string } | null;
  attachments: { url: string; mime: string }[];
  isRead: boolean;
}

export type AlertView = StandardAlert | ChatAlert;

const iso = (ms: number) => new Date(ms).toISOString();

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

const ROW_KEYS = [
  'id', 'channelId', 'kind', 'title', 'level', 'emoji', 'message', 'fieldsJson', 'linkUrl', 'linkText', 'source', 'actorJson',
  'workflowRunId', 'workflowState', 'workflowStepsJson', 'workflowError', 'externalId', 'authorJson', 'replyToJson',
  'activityKey', 'createdAt', 'updatedAt',
] as const;

/**
 * better-sqlite3 builds row objects through the V8 API, which costs about as
 * much as the query itself on a 50-row page; reading raw arrays (`.raw()` on a
 * statement selecting ALERT_COLUMNS) and building the objects here halves it.
 * `columns` is the statement's column list, checked once against the layout.
 */
export function rawAlertRows(columns: { name: string }[]): (raw: unknown[]) => AlertRow {
  const names = columns.map((c) => c.name);
  if (names.length !== ROW_KEYS.length || names.some((n, i) => n !== ROW_KEYS[i])) {
    throw new Error(`statement columns ${names.join(',')} do not match ALERT_COLUMNS`);
  }
  return (r) =>
    ({
      id: r[0], channelId: r[1], kind: r[2], title: r[3], level: r[4], emoji: r[5], message: r[6], fieldsJson: r[7],
      linkUrl: r[8], linkText: r[9], source: r[10], actorJson: r[11], workflowRunId: r[12], workflowState: r[13],
      workflowStepsJson: r[14], workflowError: r[15], externalId: r[16], authorJson: r[17], replyToJson: r[18],
      activityKey: r[19], createdAt: r[20], updatedAt: r[21],
    }) as AlertRow;
}
