import type { Recipient, UnitRecipientRule } from '../../domain/notification-preferences.js';
import { RECIPIENT, RECIPIENTS } from '../shared/preference-rows.js';
import type { SqliteExecutor } from './executor.js';

/**
 * The outbox's recipient rule read synchronously inside a SQLite store unit (the group commit and
 * the immediate claim transactions cannot await): the shared statement, run on the spot.
 */
export class SqliteUnitRecipients implements UnitRecipientRule {
  constructor(private readonly database: SqliteExecutor) {}

  recipientsInUnit(channelId: string): Recipient[] {
    return this.database.allNow(RECIPIENTS, { channelId });
  }

  recipientInUnit(channelId: string, userId: string): Recipient | undefined {
    return this.database.getNow(RECIPIENT, { channelId, userId });
  }
}
