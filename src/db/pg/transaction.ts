import type pg from 'pg';

/**
 * A pool client held for a while (a transaction, a session-level lock), safe against the server
 * ending its connection: pg-pool takes its own 'error' listener off a client while it is checked
 * out, so a terminated backend (server restart, `pg_terminate_backend`, a cut network) would emit
 * 'error' with no listener and crash the process. The failure reaches the caller through the query
 * it was running instead; the connection is not given back to the pool but destroyed.
 */
export interface HeldClient {
  readonly client: pg.PoolClient;
  /** Gives the client back; `broken` (or a connection error seen while held) destroys it. */
  release(broken?: boolean): void;
}

export async function holdClient(pool: pg.Pool): Promise<HeldClient> {
  const client = await pool.connect();
  let failed = false;
  const onError = () => {
    failed = true;
  };
  client.on('error', onError);
  let released = false;
  return {
    client,
    release(broken = false) {
      if (released) return;
      released = true;
      client.off('error', onError);
      client.release(broken || failed);
    },
  };
}

/**
 * Runs `body` in one transaction on its own client: `begin` (default BEGIN), the body, COMMIT;
 * ROLLBACK on any error, so a failed body leaves nothing behind. Resolves after COMMIT. A client
 * whose ROLLBACK failed is destroyed rather than reused with an unknown transaction state.
 */
export async function inTransaction<T>(pool: pg.Pool, body: (tx: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const held = await holdClient(pool);
  let broken = false;
  try {
    await held.client.query(begin);
    const result = await body(held.client);
    await held.client.query('COMMIT');
    return result;
  } catch (err) {
    await held.client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    held.release(broken);
  }
}
