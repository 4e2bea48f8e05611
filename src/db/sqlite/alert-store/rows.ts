import type Database from 'better-sqlite3';
import type { AlertRow } from '../../../domain/alert-store.js';
import { ALERT_ROW_KEYS, alertRowAt, ATTACHMENT_ROW_KEYS, columnName } from '../../shared/alert-columns.js';

/** `a.<column> AS <key>, …` for a query that names the alerts table `a`. */
export const ALERT_COLUMNS = ALERT_ROW_KEYS.map((k) => `a.${columnName(k)} AS ${k}`).join(', ');

export const ATTACHMENT_COLUMNS = ATTACHMENT_ROW_KEYS.map((k) => `${columnName(k)} AS ${k}`).join(', ');

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
  return (...params) => stmt.all(...params).map((raw) => alertRowAt(raw, 0));
}
