import type pg from 'pg';
import { SqlDiscordLinkRows } from '../shared/discord-link-rows.js';
import { PgExecutor } from './executor.js';

/** Transitional: the CLI (src/cli/pg-rows.ts) still builds its rows from the pool; delete once it uses the shared wiring. */
export class PgDiscordLinkRows extends SqlDiscordLinkRows {
  constructor(pool: pg.Pool) {
    super(new PgExecutor(pool));
  }
}
