import type { ChatAlert, StandardAlert } from '../../src/domain/alert-view.js';

/** The lifecycle members of a new alert (open, reported once, handled by nobody). */
export const newLifecycle = {
  status: 'open',
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt: null,
  resolvedBy: null,
  snoozedUntil: null,
  occurrences: 1,
  silencedBy: null,
} as const;

/** A plain INFO alert as the read API shows it: the base the rendering tests vary one field at a time. */
export const standardAlertView: StandardAlert = {
  id: 'alt_1',
  channelId: 'ch_1',
  title: 'Deploy api',
  level: 'INFO',
  emoji: null,
  message: null,
  fields: [],
  linkUrl: null,
  linkText: null,
  source: null,
  actor: null,
  workflow: null,
  attachments: [],
  isRead: false,
  createdAt: '2026-01-01T12:00:00.000Z',
  updatedAt: '2026-01-01T12:00:00.000Z',
  ...newLifecycle,
};

/** A chat message by Ana, as the read API shows it. */
export function chatAlertView(overrides: Partial<ChatAlert> = {}): ChatAlert {
  return {
    id: 'alt_2',
    channelId: 'ch_1',
    message: 'the checkout page is blank',
    createdAt: standardAlertView.createdAt,
    editedAt: null,
    author: { id: '1', name: 'Ana', bot: false, role: 'member' },
    replyTo: null,
    attachments: [],
    isRead: false,
    ...newLifecycle,
    thread: null,
    tags: [],
    reactions: [],
    ...overrides,
  };
}
