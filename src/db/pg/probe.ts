import type pg from 'pg';
import type { DatabaseProbe, ProbeResult } from '../../domain/database-probe.js';

/** How long /readyz waits for the server before it calls the database down. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * PostgreSQL: the server answers a query within the timeout, and is not a read-only standby (a
 * node left pointing at a demoted primary after a failover must leave the load balancer). Disk
 * space is the server's; a full disk there shows up as failed writes (storage health).
 */
export class PgProbe implements DatabaseProbe {
  constructor(private readonly pool: pg.Pool) {}

  async probe(): Promise<ProbeResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = this.pool.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`PostgreSQL did not answer in ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      });
      const { rows } = await Promise.race([answer, timeout]);
      return rows[0]?.standby ? { ok: false, reason: 'the database is a read-only standby' } : { ok: true };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}
