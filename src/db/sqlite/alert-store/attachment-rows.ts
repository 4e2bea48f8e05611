import type Database from 'better-sqlite3';
import type { AttachmentRecord } from '../../../domain/alert-store.js';

/** The attachment rows of one alert, as both write paths (webhook and chat) replace them. Call inside a unit. */
export class AttachmentRows {
  private readonly statements;

  constructor(sqlite: Database.Database) {
    this.statements = {
      insert: sqlite.prepare<[string, number, string, string, string, string | null, number]>(
        'INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      remove: sqlite.prepare<[string]>('DELETE FROM alert_attachments WHERE alert_id = ?'),
      keys: sqlite.prepare<[string], string>('SELECT media_key FROM alert_attachments WHERE alert_id = ?').pluck(),
    };
  }

  /** Positions follow the given order. */
  insert(alertId: string, attachments: AttachmentRecord[]): void {
    attachments.forEach((f, i) => this.statements.insert.run(alertId, i, f.mediaKey, f.mime, f.kind, f.name, f.size));
  }

  /** The media keys the alert uses now (to release after a replace or delete commits). */
  keys(alertId: string): string[] {
    return this.statements.keys.all(alertId);
  }

  /** Replaces the alert's files; returns the keys it used before. */
  replace(alertId: string, attachments: AttachmentRecord[]): string[] {
    const released = this.keys(alertId);
    this.statements.remove.run(alertId);
    this.insert(alertId, attachments);
    return released;
  }
}
