import { PgAlertReads } from '../db/pg/alert-store/reads.js';
import { PgWriteUnits } from '../db/pg/alert-store/unit.js';
import { openPg } from '../db/pg/connection.js';
import { PgExecutor } from '../db/pg/executor.js';
import { SqlAlertRemoval } from '../db/shared/alert-removal.js';
import { SqlAlertLifecycle } from '../db/shared/alert-lifecycle-rows.js';
import { SqlMediaOrphanRows } from '../db/shared/media-orphan-rows.js';
import { MEDIA_REFERENCED } from '../db/shared/store-lookups.js';
import { adminRowsOver, type AdminRows } from './admin-rows.js';

/**
 * The admin commands' rows on PostgreSQL: the row modules a node uses (src/services/postgres.ts), over a
 * small pool migrated on open, without the node's LISTEN connection, leader lock or claims.
 */
export async function openPgAdminRows(url: string): Promise<AdminRows> {
  const { pool, close } = await openPg(url, { max: 2 });
  const database = new PgExecutor(pool);
  return adminRowsOver(
    database,
    () => ({
      reads: new PgAlertReads(pool),
      removal: new SqlAlertRemoval(new PgWriteUnits(pool)),
      lifecycle: new SqlAlertLifecycle(database, new PgWriteUnits(pool)),
      isMediaReferenced: async (key) => (await database.get(MEDIA_REFERENCED, { key })) !== undefined,
      orphans: new SqlMediaOrphanRows(database),
    }),
    close,
  );
}
