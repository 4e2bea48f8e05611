import type Database from 'better-sqlite3';
import { alertAttachments, alerts } from '../schema/alerts.js';
import type { AlertRow, ChannelRecord } from '../../domain/alert-store.js';
import { CONTENT_KEYS, type ContentKey } from '../shared/alert-content-columns.js';

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
  'activityKey', 'seq', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof AlertRow)[];

type Missing = Exclude<keyof AlertRow, (typeof ALERT_ROW_KEYS)[number]>;
const everyColumnListed: [Missing] extends [never] ? true : Missing = true;
void everyColumnListed;

/** `a.<column> AS <key>, …` for a query that names the alerts table `a`. */
export const ALERT_COLUMNS = ALERT_ROW_KEYS.map((k) => `a.${alerts[k].name} AS ${k}`).join(', ');

export const ATTACHMENT_COLUMNS = (['alertId', 'position', 'mediaKey', 'mime', 'kind', 'name', 'size'] as const)
  .map((k) => `${alertAttachments[k].name} AS ${k}`)
  .join(', ');

/**
 * Builds an AlertRow from a raw array as one object literal, generated once
 * from ALERT_ROW_KEYS (constant identifiers, never input): V8 gives literals a
 * fixed shape at once, where assigning the keys in a loop cost ~15 % of a
 * 50-alert page in the read bench.
 */
// `new Function` on purpose: generated from the constant key list above (see the comment), never from input.
const rowOf = new Function('r', `return { ${ALERT_ROW_KEYS.map((k, i) => `${k}: r[${i}]`).join(', ')} };`) as (raw: unknown[]) => AlertRow;

/**
 * better-sqlite3 builds row objects through the V8 API, which costs about as
 * much as the query itself on a 50-row page; reading raw arrays (`.raw()` on a
 * statement selecting ALERT_COLUMNS) and building the objects here halves it.
 * The column check ties each position to its key; SQLite returns what the
 * schema stores, which is what the generated builder's type claims.
 */
export function rawAlertRows<P extends unknown[]>(stmt: Database.Statement<P, unknown[]>): (...params: P) => AlertRow[] {
  const names = stmt.columns().map((c) => c.name);
  if (names.length !== ALERT_ROW_KEYS.length || names.some((n, i) => n !== ALERT_ROW_KEYS[i])) {
    throw new Error(`statement columns ${names.join(',')} do not match ALERT_COLUMNS`);
  }
  return (...params) => stmt.all(...params).map(rowOf);
}

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
