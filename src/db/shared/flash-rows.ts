import type { FlashRow, FlashRows } from '../../domain/auth/flashes.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

const INSERT_FLASH = statement<FlashRow>(
  'INSERT INTO flashes (id, session_hash, sealed, expires_at) VALUES (:id, :sessionHash, :sealed, :expiresAt)',
);
// Read and deleted in one statement: a reload, or a second node, finds nothing.
const TAKE_FLASH = statement<{ id: string; sessionHash: string }, { sealed: string; expiresAt: number }>(
  'DELETE FROM flashes WHERE id = :id AND session_hash = :sessionHash RETURNING sealed, expires_at AS "expiresAt"',
);
const PRUNE_FLASHES = statement<{ now: number }>('DELETE FROM flashes WHERE expires_at <= :now');

/** The flashes table on either engine (src/domain/auth/flashes.ts seals and opens them). */
export class SqlFlashRows implements FlashRows {
  constructor(private readonly database: SqlExecutor) {}

  async insert(row: FlashRow): Promise<void> {
    await this.database.run(INSERT_FLASH, row);
  }

  async take(id: string, sessionHash: string) {
    const row = await this.database.get(TAKE_FLASH, { id, sessionHash });
    return row ? { sealed: row.sealed, expiresAt: Number(row.expiresAt) } : undefined;
  }

  async prune(now: number): Promise<number> {
    return await this.database.run(PRUNE_FLASHES, { now });
  }
}
