import type Database from 'better-sqlite3';
import { SqlDiscordLinkRows } from './shared/discord-link-rows.js';
import { SqliteExecutor } from './sqlite/executor.js';

/** Transitional: the CLI (src/cli/context.ts) still builds its rows from the raw handle; delete once it uses the shared wiring. */
export class SqliteDiscordLinkRows extends SqlDiscordLinkRows {
  constructor(sqlite: Database.Database) {
    super(new SqliteExecutor(sqlite));
  }
}
