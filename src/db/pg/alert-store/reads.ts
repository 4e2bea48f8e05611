import type pg from 'pg';
import { SqlAlertReads } from '../../shared/alert-reads.js';
import { PgExecutor } from '../executor.js';
import { PgChannelPages } from './channel-pages.js';

/** The shared alert reads (src/db/shared/alert-reads.ts) over a pool, with the channel page in one statement (channel-pages.ts). */
export class PgAlertReads extends SqlAlertReads {
  constructor(pool: pg.Pool) {
    const database = new PgExecutor(pool);
    super(database, undefined, new PgChannelPages(database));
  }
}
