import type { AlertRow, ChannelRecord } from '../../domain/alert-store.js';
import { CONTENT_KEYS, type ContentKey } from './alert-content-columns.js';

/** The content keys a read returns (the opaque metadata is written, never read back). */
const READ_CONTENT_KEYS = CONTENT_KEYS.filter((key): key is Exclude<ContentKey, 'metadataJson'> => key !== 'metadataJson');

/**
 * The alert row's keys in SELECT order. The one spelling of the column list:
 * the SQL and the raw-row mapper below are derived from it and from the drizzle
 * schema, its content keys from the content list every write is built from, and
 * the check under it fails to compile when the row type gains or loses a column
 * this list does not name.
 */
export const ALERT_ROW_KEYS = [
  'id', 'channelId', 'kind', ...READ_CONTENT_KEYS, 'externalId', 'authorJson', 'replyToJson',
  'threadId', 'threadJson', 'tagsJson', 'reactionsJson', 'reactionCount',
  'silencedBy', 'silenceComment', 'activityKey', 'seq', 'createdAt', 'updatedAt',
  'status', 'acknowledgedAt', 'acknowledgedByJson', 'resolvedAt', 'resolvedByJson', 'snoozedUntil', 'occurrences',
] as const satisfies readonly (keyof AlertRow)[];

type Missing = Exclude<keyof AlertRow, (typeof ALERT_ROW_KEYS)[number]>;
const everyColumnListed: [Missing] extends [never] ? true : Missing = true;
void everyColumnListed;

/**
 * A key's column: its snake_case spelling, which both schemas use for every column read here
 * (test/db/alert-rows-match-schemas.test.ts checks each against both). Spelled out rather than
 * read from the drizzle schema so that a running service does not load drizzle's two schema
 * builders (about 100 modules, several MB of memory) only to learn column names.
 */
export const columnName = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Builds an AlertRow from a raw row (an array, as both engines can return a row) whose alert
 * columns start at `offset`, in ALERT_ROW_KEYS order, as one object literal generated once from the
 * constant key list, never from input: V8 gives a literal its fixed shape at once, where assigning
 * the keys in a loop cost about 15 % of a 50-alert page (and made a dictionary of each row, slower
 * again to read when rendering).
 */
// `new Function` on purpose: generated from the constant key list above (see the comment), never from input.
export const alertRowAt = new Function('r', 'o', `return { ${ALERT_ROW_KEYS.map((k, i) => `${k}: r[o + ${i}]`).join(', ')} };`) as (raw: readonly unknown[], offset: number) => AlertRow;

/** The attachment row's keys in SELECT order. */
export const ATTACHMENT_ROW_KEYS = ['alertId', 'position', 'mediaKey', 'mime', 'kind', 'name', 'size'] as const;

/** `a.<column> AS "<key>", …` for a query that names the alerts table `a`: quoted, as PostgreSQL folds unquoted aliases. */
export const ALERT_SELECT = ALERT_ROW_KEYS.map((k) => `a.${columnName(k)} AS "${k}"`).join(', ');

/** An attachment row's columns (`alert_attachments`, unaliased), quoted as ALERT_SELECT is. */
export const ATTACHMENT_SELECT = ATTACHMENT_ROW_KEYS.map((key) => `${columnName(key)} AS "${key}"`).join(', ');

/** A channel joined with its Discord link, as both engines' reads select it (`isPrivate` as the engine stores it). */
export interface ChannelJoinRow {
  id: string;
  name: string;
  slug: string;
  icon: string;
  isPrivate: number | boolean;
  webhookToken: string;
  discordChannelId: string | null;
  guildId: string | null;
  guildName: string | null;
  discordChannelName: string | null;
}

/** The domain's channel record from a joined row, on either engine (SQLite stores booleans as 0/1). */
export function channelRecordOf(r: ChannelJoinRow): ChannelRecord {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    icon: r.icon,
    isPrivate: r.isPrivate === true || r.isPrivate === 1,
    webhookToken: r.webhookToken,
    discord: r.discordChannelId
      ? { channelId: r.discordChannelId, guildId: r.guildId, guildName: r.guildName, channelName: r.discordChannelName }
      : null,
  };
}
