import { AppError } from './errors.js';
import type { Clock } from '../lib/clock.js';

export const NOTIFY_LEVELS = ['all', 'important', 'none'] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];
export type AlertLevel = 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR';

/**
 * The default when a user has set nothing for a channel. `all` on a normal
 * channel: the spec says alert creation triggers e-mail, so a new member must
 * not have to opt in to be told about an outage, and the flood guard protects
 * the inbox from bursts. `none` on a chat-connected (Discord) channel: those
 * channels mirror a conversation, not alerts, and the spec ties e-mail to alerts
 * from the webhook; mailing every chat message to every member would be spam.
 */
export const DEFAULT_LEVEL: NotifyLevel = 'all';
export const CHAT_CHANNEL_DEFAULT_LEVEL: NotifyLevel = 'none';

/** `important` = warnings and errors only. */
export function levelAllows(pref: NotifyLevel, alertLevel: AlertLevel): boolean {
  if (pref === 'all') return true;
  if (pref === 'important') return alertLevel === 'WARNING' || alertLevel === 'ERROR';
  return false;
}

export interface Recipient {
  userId: string;
  email: string;
  name: string;
  /** The effective preference (stored, or the channel's default). */
  level: NotifyLevel;
  /** Their quiet hours as stored (null: none); read with quietHoursOf (src/domain/quiet-hours.ts). */
  quietZone?: string | null;
  quietStart?: number | null;
  quietEnd?: number | null;
  quietMinLevel?: string | null;
}

export interface PreferenceRow {
  channelId: string;
  slug: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  isPrivate: number;
  stored: NotifyLevel | null;
  level: NotifyLevel;
}

/**
 * Where preferences are stored (src/db/preference-rows.ts on SQLite, src/db/pg/preference-rows.ts on
 * PostgreSQL): the port the use case and the notifier read through; neither writes SQL itself.
 */
export interface PreferenceRows {
  /** Everyone who can see the channel (src/db/shared/visibility.ts), with their effective level. */
  recipients(channelId: string): Promise<Recipient[]>;
  recipient(channelId: string, userId: string): Promise<Recipient | undefined>;
  upsert(userId: string, channelId: string, level: NotifyLevel, now: number): Promise<void>;
  /** Every channel the user can see, oldest workspace and channel first. */
  forUser(userId: string): Promise<PreferenceRow[]>;
}

/**
 * The same recipient rule, read synchronously INSIDE a store unit: the outbox's fan-out and its
 * delivery and digest claims decide who gets what in the unit's own transaction (the SQLite group
 * commit runs units synchronously, so they cannot await). It is the alert store's read, not a
 * use case's: on PostgreSQL the store will answer it inside its own transaction.
 */
export interface UnitRecipientRule {
  recipientsInUnit(channelId: string): Recipient[];
  recipientInUnit(channelId: string, userId: string): Recipient | undefined;
}

/** Per-(user, channel) e-mail preferences and the recipient rule built on them. */
export class NotificationPreferences {
  constructor(
    private readonly rows: PreferenceRows,
    private readonly clock: Clock,
  ) {}

  /** Everyone who can see the channel, with their effective preference (not yet filtered by level). */
  recipients(channelId: string): Promise<Recipient[]> {
    return this.rows.recipients(channelId);
  }

  /** The same rule for one user, re-checked at send time; undefined when they can no longer see the channel. */
  recipient(channelId: string, userId: string): Promise<Recipient | undefined> {
    return this.rows.recipient(channelId, userId);
  }

  async set(userId: string, channelId: string, level: NotifyLevel) {
    if (!NOTIFY_LEVELS.includes(level)) throw new AppError('invalid-body', `level must be one of ${NOTIFY_LEVELS.join(', ')}`);
    // A preference for a channel the user cannot see would be dead data and usually a typo.
    if (!(await this.recipient(channelId, userId))) {
      throw new AppError('not-found', `user ${userId} cannot see channel ${channelId} (not a workspace member, or not a member of the private channel)`);
    }
    await this.rows.upsert(userId, channelId, level, this.clock.now());
    return { userId, channelId, level };
  }

  /** Every channel the user can see, with the stored level or the default that applies. */
  async list(userId: string) {
    return (await this.rows.forUser(userId)).map((r) => ({
      channelId: r.channelId,
      slug: r.slug,
      name: r.name,
      workspace: { id: r.workspaceId, name: r.workspaceName },
      isPrivate: Boolean(r.isPrivate),
      level: r.level,
      isDefault: r.stored === null,
    }));
  }
}
