import type { ActionLinkUses } from '../../domain/alert-action-links.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const USE = statement<{ nonce: string; expiresAt: number; now: number }>(
  'INSERT INTO alert_action_uses (nonce, expires_at, used_at) VALUES (:nonce, :expiresAt, :now) ON CONFLICT (nonce) DO NOTHING',
);
const PRUNE = statement<{ before: number }>('DELETE FROM alert_action_uses WHERE expires_at < :before');

/** Which action links were used, on either engine: the unique nonce makes a second use lose, on one node or several. */
export class SqlActionLinkUses implements ActionLinkUses {
  constructor(private readonly database: SqlExecutor) {}

  async use(nonce: string, expiresAt: number, now: number): Promise<boolean> {
    return (await this.database.run(USE, { nonce, expiresAt, now })) === 1;
  }

  prune(before: number): Promise<number> {
    return this.database.run(PRUNE, { before });
  }
}
