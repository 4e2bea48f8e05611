import type { AlertStatus } from './alert-lifecycle.js';
import type { MediaKind } from './media.js';

// The alert store's row types: what both engines' stores hand to the use cases, declared here so the
// use cases never lean on a schema. Both drizzle schemas infer exactly these (checked at compile time
// by test/db/alert-rows-match-schemas.test.ts); shared by the store's interfaces (alert-store.ts,
// outbox-store.ts) and re-exported by alert-store.ts.

export type AlertLevel = 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR';
export type RunState = 'running' | 'passed' | 'failed';

/** One alert row as stored (the opaque metadata excepted: nothing reads it back). */
export interface AlertRow {
  id: string;
  channelId: string;
  kind: 'standard' | 'chat';
  title: string;
  level: AlertLevel;
  emoji: string;
  message: string | null;
  fieldsJson: string | null;
  linkUrl: string | null;
  linkText: string | null;
  source: string | null;
  actorJson: string | null;
  workflowRunId: string | null;
  workflowState: RunState | null;
  workflowStepsJson: string | null;
  workflowError: string | null;
  /** A sender's de-duplication key; null for every other alert. */
  dedupKey: string | null;
  /** Chat-connected channels: the message's id on the chat platform. */
  externalId: string | null;
  authorJson: string | null;
  replyToJson: string | null;
  /** Discord threads and forum posts: the thread's id, `{id, name}` and the post's tag names (JSON); null outside threads. */
  threadId: string | null;
  threadJson: string | null;
  tagsJson: string | null;
  /** The reaction summary `[{emoji, count}]` (JSON, null when none) and its total. */
  reactionsJson: string | null;
  reactionCount: number;
  /** The silence that muted the alert's latest notification, and its comment (src/domain/silences.ts). */
  silencedBy: string | null;
  silenceComment: string | null;
  activityKey: string;
  seq: number;
  createdAt: number;
  updatedAt: number;
  // The lifecycle (src/domain/alert-lifecycle.ts): not content, written only by lifecycle steps.
  status: AlertStatus;
  acknowledgedAt: number | null;
  acknowledgedByJson: string | null;
  resolvedAt: number | null;
  resolvedByJson: string | null;
  snoozedUntil: number | null;
  occurrences: number;
}

export interface AttachmentRow {
  alertId: string;
  position: number;
  mediaKey: string;
  mime: string;
  kind: MediaKind;
  name: string | null;
  size: number;
}

export type AlertEventType = 'alert.created' | 'alert.updated' | 'alert.deleted';
export type NotificationKind = 'alert.created' | 'alert.resolved' | 'workflow.started' | 'workflow.finished' | 'alert.escalated';

/** A file already in the media store, ready to be attached. */
export type AttachmentRecord = Pick<AttachmentRow, 'mediaKey' | 'mime' | 'kind' | 'name' | 'size'>;
