import pg from 'pg';
import { AppError } from '../../../domain/errors.js';
import type { IdempotencyClaims } from '../../../domain/idempotency.js';

/**
 * The two-key advisory lock space's first key for Idempotency-Key claims: "ALBR" as an int4. The
 * two-key space never overlaps the one-key space of src/db/shared/advisory-locks.ts.
 */
const CLAIM_SPACE = 0x414c4252;

/**
 * Idempotency-Key claims across nodes: the in-memory `inFlight` set of src/domain/idempotency.ts
 * made cluster-wide, with the same answer. A request that finds its (channel, key) claimed by a
 * request still running, on this node or another, is refused at once with
 * `idempotency-key-in-use` (409), as on SQLite; it does not wait. Once the first request has
 * committed its answer and released the claim, the retry gets the stored answer replayed.
 *
 * A claim is a session-level `pg_try_advisory_lock(CLAIM_SPACE, hashtext(channel ‖ key))` on one
 * dedicated connection per node (direct, not through a transaction pooler: session locks need the
 * session). Holding it costs no pool connection, so a burst of keyed requests cannot starve the
 * writes they wait on. Same-session advisory locks are re-entrant, so claims made on this node are
 * also kept in a local set. If the node dies, its session ends and every claim it held is released
 * (the requests died with it); if the connection drops, the claims are released the same way and
 * the next claim opens a new connection. Two different keys whose 32-bit hashes collide refuse each
 * other while both are in flight (a spurious 409 the client retries): a trade for fixed-size locks.
 */
export class PgIdempotencyClaims implements IdempotencyClaims {
  private readonly local = new Set<string>();
  private client: Promise<pg.Client> | null = null;
  /** The client `client` resolves to, known before it resolves. */
  private live: pg.Client | null = null;

  constructor(private readonly url: string) {}

  /** Claims (channel, key) or throws `idempotency-key-in-use`; the returned release ends the claim. */
  async claim(channelId: string, key: string): Promise<{ release(): Promise<void> }> {
    // A channel id holds no space, so "channel key" names one pair.
    const id = `${channelId} ${key}`;
    if (this.local.has(id)) throw new AppError('idempotency-key-in-use');
    this.local.add(id);
    let client: pg.Client;
    try {
      client = await this.connection();
      let ok: boolean;
      try {
        ok = await this.tryLock(client, id);
      } catch {
        // The session ended under us (its claims went with it): once more on a new one.
        this.forget(client);
        client = await this.connection();
        ok = await this.tryLock(client, id);
      }
      if (!ok) throw new AppError('idempotency-key-in-use');
    } catch (err) {
      this.local.delete(id);
      throw err;
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        try {
          // A dropped connection already released the lock with its session.
          await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [CLAIM_SPACE, id]).catch(() => {});
        } finally {
          this.local.delete(id);
        }
      },
    };
  }

  async close(): Promise<void> {
    const c = this.live;
    this.live = null;
    this.client = null;
    if (c) await c.end().catch(() => {});
  }

  private async tryLock(client: pg.Client, id: string): Promise<boolean> {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [CLAIM_SPACE, id]);
    return rows[0]?.ok === true;
  }

  /** Drops a session that failed (its claims ended with it); a claim made after opens a new one. */
  private forget(client: pg.Client): void {
    if (this.live === client) {
      this.live = null;
      this.client = null;
    }
    client.end().catch(() => {});
  }

  private connection(): Promise<pg.Client> {
    if (!this.client) {
      const c = new pg.Client({ connectionString: this.url, keepAlive: true });
      // Whatever ends the session ends its claims: open a new one next time.
      c.on('error', () => this.forget(c));
      c.on('end', () => this.forget(c));
      const opening = c.connect().then(() => c);
      this.live = c;
      this.client = opening;
      opening.catch(() => this.forget(c));
    }
    return this.client;
  }
}
