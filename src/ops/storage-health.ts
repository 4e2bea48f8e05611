import { AppError } from '../domain/errors.js';
import type { Logger } from '../lib/logger.js';

/** What a sender is told to wait: a full disk is rarely fixed within seconds. */
export const STORAGE_RETRY_AFTER_S = 30;

/**
 * Error codes that mean "the bytes could not be stored" rather than "the
 * request was wrong" or "our code is wrong". Out of space is `full` (it clears
 * when space returns); an I/O error is `io` (only a successful write proves
 * the disk is back).
 */
const FULL_CODES: Record<string, string> = {
  SQLITE_FULL: 'database or disk is full',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
};
const IO_CODES: Record<string, string> = {
  EIO: 'I/O error',
  EROFS: 'read-only file system',
  SQLITE_READONLY: 'database is read-only',
};
/**
 * PostgreSQL's SQLSTATEs (pg's DatabaseError `code`) for the same failures on the database server
 * every node shares: disk_full, io_error, and read_only_sql_transaction (a standby answering
 * writes during a failover).
 */
const SERVER_CODES: Record<string, StorageFailure> = {
  '53100': { kind: 'full', reason: "the database server's disk is full", shared: true },
  '58030': { kind: 'io', reason: 'database server I/O error', shared: true },
  '25006': { kind: 'io', reason: 'the database server is read-only', shared: true },
};

export type StorageFailureKind = 'full' | 'io';

export interface StorageFailure {
  kind: StorageFailureKind;
  /** Human reason, e.g. "database or disk is full" (no path, no secret). */
  reason: string;
  /**
   * On the PostgreSQL server every node shares, not on this node's disks: taking the node out of
   * rotation would not help (every node has it), and nothing this node measures proves it gone;
   * only a successful write does. /readyz warns instead of failing (docs/cluster.md "Decisions").
   */
  shared?: true;
}

/**
 * Classifies an error thrown by SQLite (better-sqlite3's SqliteError `code`,
 * including extended codes such as SQLITE_IOERR_WRITE), by PostgreSQL (its
 * SQLSTATE in pg's `code`) or by fs (errno `code`),
 * following `cause` chains. null when it is not a storage failure.
 */
export function storageFailureOf(err: unknown): StorageFailure | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (code in FULL_CODES) return { kind: 'full', reason: FULL_CODES[code]! };
    if (code in IO_CODES) return { kind: 'io', reason: IO_CODES[code]! };
    if (code in SERVER_CODES) return { ...SERVER_CODES[code]! };
    if (code.startsWith('SQLITE_IOERR')) return { kind: 'io', reason: 'disk I/O error' };
    if (code.startsWith('SQLITE_READONLY')) return { kind: 'io', reason: IO_CODES.SQLITE_READONLY! };
  }
  return null;
}

/** The 503 problem a sender gets for a write that could not be stored. */
export function storageUnavailable(reason: string): AppError {
  return new AppError('storage-unavailable', `nothing was stored: ${reason}; retry later`, { retryAfter: STORAGE_RETRY_AFTER_S });
}

/**
 * "Did the last write fail for storage reasons?" — the state behind /healthz's
 * `degraded` and /readyz's storage check. Set by any failed write (a request,
 * the group commit, the media store's reserve check), cleared by the next
 * successful one. Only transitions are logged: under a flood of refused
 * alerts, a log line per refusal would fill what is left of the disk.
 */
export class StorageHealth {
  #failure: (StorageFailure & { at: number }) | null = null;

  constructor(private readonly logger: Logger) {}

  get failure(): (StorageFailure & { at: number }) | null {
    return this.#failure;
  }

  failed(f: StorageFailure): void {
    if (!this.#failure) this.logger.error({ reason: f.reason }, 'storage unavailable: writes are refused with 503 until one succeeds');
    this.#failure = { ...f, at: Date.now() };
  }

  /** Called on every committed write: must stay a field check on the hot path. */
  succeeded(): void {
    if (this.#failure === null) return;
    this.logger.info({ reason: this.#failure.reason }, 'storage recovered: a write succeeded');
    this.#failure = null;
  }

  /**
   * Space came back (checked by readiness): a `full` failure clears without
   * waiting for a write, so a load balancer that stopped sending traffic on
   * our 503 sends it again. An `io` failure needs a real successful write,
   * and so does a failure on the shared database server (this node's disks
   * say nothing of its).
   */
  spaceReturned(): void {
    if (this.#failure?.kind !== 'full' || this.#failure.shared) return;
    this.logger.info({ reason: this.#failure.reason }, 'storage recovered: free space is back');
    this.#failure = null;
  }
}
