import { LEVEL_EMOJI } from '../../alert-card/view-model.js';
import type { AlertRow, AttachmentRow } from '../../domain/alert-rows.js';
import type { OutboxChannel } from '../../domain/outbox-store.js';
import type { RouteEvent } from '../../domain/routes/route-kinds.js';

/** What every kind's renderer starts from: the alert as it is now, flattened for chat formats. */
export interface RouteMessage {
  alertId: string;
  event: RouteEvent;
  title: string;
  emoji: string;
  level: AlertRow['level'];
  message: string | null;
  fields: { label: string; value: string; inline: boolean }[];
  linkUrl: string | null;
  linkText: string | null;
  source: string | null;
  /** The first image attachment's public URL, if any. */
  imageUrl: string | null;
  channelName: string;
  /** The alert's channel in the dashboard. */
  openUrl: string;
  /** Seconds since the epoch of the alert's last change. */
  at: number;
}

export const LEVEL_COLOR: Record<AlertRow['level'], number> = { INFO: 0x2563eb, SUCCESS: 0x16a34a, WARNING: 0xd97706, ERROR: 0xdc2626 };

const EVENT_WORD: Record<RouteEvent, string> = {
  'alert.opened': 'Opened',
  'alert.updated': 'Updated',
  'alert.acknowledged': 'Acknowledged',
  'alert.resolved': 'Resolved',
};
export const eventWord = (e: RouteEvent) => EVENT_WORD[e];

export function parseFields(json: string | null): RouteMessage['fields'] {
  if (!json) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as RouteMessage['fields']).filter((f) => f && typeof f.label === 'string' && typeof f.value === 'string') : [];
  } catch {
    return [];
  }
}

export function routeMessage(
  alert: AlertRow,
  attachments: AttachmentRow[],
  channel: OutboxChannel | undefined,
  event: RouteEvent,
  o: { publicUrl: string; mediaUrl: (key: string) => string },
): RouteMessage {
  const image = attachments.find((a) => a.kind === 'image');
  return {
    alertId: alert.id,
    event,
    title: alert.title,
    emoji: alert.emoji || LEVEL_EMOJI[alert.level],
    level: alert.level,
    message: alert.message,
    fields: parseFields(alert.fieldsJson),
    linkUrl: alert.linkUrl,
    linkText: alert.linkText,
    source: alert.source,
    imageUrl: image ? o.mediaUrl(image.mediaKey) : null,
    channelName: channel?.name ?? 'channel',
    openUrl: `${o.publicUrl.replace(/\/+$/, '')}/feed/c/${encodeURIComponent(alert.channelId)}`,
    at: Math.floor(alert.updatedAt / 1000),
  };
}

/** Cuts text to `max` characters with an ellipsis (receivers refuse longer values). */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The sample a route's test sends. */
export function sampleMessage(channelName: string, publicUrl: string, now: number): RouteMessage {
  return {
    alertId: 'al_test', event: 'alert.opened', title: 'Test alert from Alertbridge', emoji: '🔔', level: 'INFO',
    message: 'If you can read this, the route works.', fields: [{ label: 'Route', value: 'test', inline: true }],
    linkUrl: null, linkText: null, source: 'alertbridge', imageUrl: null, channelName, openUrl: publicUrl, at: Math.floor(now / 1000),
  };
}
