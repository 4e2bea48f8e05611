import type { AlertRow, NotificationKind, OutboxChannel } from '../../domain/alert-store.js';
import { maskedLinkLabels } from '../../alert-card/format.js';
import { LEVEL_EMOJI } from '../../alert-card/view-model.js';
import { effectiveLevel } from '../outbox/fan-out.js';

/** Characters of the message a notification shows; the whole alert is one click away. */
export const PUSH_EXCERPT_CHARS = 180;

/**
 * What the service worker (assets/push-sw.js) receives, encrypted, and shows.
 * Small on purpose: push services accept about 4 KB, and the page has the rest.
 */
export interface PushPayload {
  title: string;
  body: string;
  /** Opened (or focused) on click: the alert's channel in the dashboard. */
  url: string;
  /**
   * Notifications with one tag replace each other: the alert id (the open tab's own
   * notification, feed-live.js, uses it too, so the two never show twice), or one
   * summary per channel in a flood.
   */
  tag: string;
  /** A replaced summary does not buzz again. */
  silent: boolean;
  alertId: string;
  channel: string;
  level: AlertRow['level'] | null;
  /**
   * Authorises the notification's Acknowledge and Resolve buttons for this recipient and alert
   * (src/domain/alert-action-links.ts: 24 h, once); absent on chat messages, resolved alerts and summaries.
   */
  actionToken?: string;
}

function excerpt(text: string | null): string {
  const flat = maskedLinkLabels(text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > PUSH_EXCERPT_CHARS ? `${flat.slice(0, PUSH_EXCERPT_CHARS - 1)}…` : flat;
}

function authorName(row: AlertRow): string {
  try {
    const author: unknown = row.authorJson ? JSON.parse(row.authorJson) : null;
    if (author && typeof author === 'object' && 'name' in author && typeof author.name === 'string') return author.name;
  } catch {
    // A malformed author shows as "New message".
  }
  return 'New message';
}

function channelUrl(publicUrl: string, channelId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/feed/c/${encodeURIComponent(channelId)}`;
}

/** One alert's notification: level emoji and title, the message excerpt, the channel. */
export function alertPayload(row: AlertRow, kind: NotificationKind, channel: OutboxChannel, publicUrl: string, escalation: string | null = null): PushPayload {
  const where = `#${channel.slug} · ${channel.workspaceName}`;
  if (row.kind === 'chat') {
    const text = excerpt(row.message);
    return {
      title: `💬 ${authorName(row)} in #${channel.slug}`,
      body: text ? `${text}\n${where}` : where,
      url: channelUrl(publicUrl, row.channelId),
      tag: row.id,
      silent: false,
      alertId: row.id,
      channel: channel.slug,
      level: null,
    };
  }
  const level = effectiveLevel(kind, row.level);
  const state =
    kind === 'alert.resolved' ? ' (resolved)' : row.workflowState && kind !== 'alert.created' ? ` (${kind === 'workflow.started' ? 'started' : row.workflowState})` : '';
  const message = excerpt(kind === 'workflow.finished' && row.workflowError ? row.workflowError : row.message);
  return {
    // An escalation step says which it is first: "Escalation 2 of 3: 🚨 Disk full".
    title: `${escalation ? `${escalation}: ` : ''}${LEVEL_EMOJI[level]} ${row.title}${state}`,
    body: message ? `${message}\n${where}` : where,
    url: channelUrl(publicUrl, row.channelId),
    tag: row.id,
    silent: false,
    alertId: row.id,
    channel: channel.slug,
    level,
  };
}

/** Past the flood limit: one summary per channel, replaced quietly as more arrive. */
export function floodPayload(row: AlertRow, channel: OutboxChannel, folded: number, publicUrl: string): PushPayload {
  return {
    title: `${folded} more ${folded === 1 ? 'alert' : 'alerts'} in #${channel.slug}`,
    body: `Latest: ${excerpt(row.title || row.message) || 'a message'}\n${channel.workspaceName}`,
    url: channelUrl(publicUrl, row.channelId),
    tag: `flood-${row.channelId}`,
    silent: true,
    alertId: row.id,
    channel: channel.slug,
    level: row.kind === 'chat' ? null : row.level,
  };
}
