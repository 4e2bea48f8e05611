import pg from 'pg';

export interface LeaderLockOptions {
  url: string;
  /** The advisory lock key (src/db/shared/advisory-locks.ts). */
  key: string;
  /** How often a follower tries to take the lock and the leader checks its connection; default 2 s. */
  intervalMs?: number;
  /** A check of the leader's connection that takes longer than this counts as lost; default 5 s. */
  checkTimeoutMs?: number;
  /** Called on every change: true when this node became the leader, false when it stopped being it. */
  onChange(leader: boolean): void;
}

/**
 * Leader election for the singletons of a cluster: a session-level `pg_try_advisory_lock` on a
 * dedicated connection (never a pooled one: the lock belongs to the server session, so it must
 * live exactly as long as this connection). The server releases the lock when the session ends,
 * whatever ends it: the leader's process killed (-9), its machine gone (TCP keepalive), or the
 * connection terminated. The leader gives up leadership as soon as its connection errors, ends, or
 * fails a periodic check, before the server could hand the lock to someone else; followers retry
 * every `intervalMs`, so another node takes over within about one interval of the server noticing.
 */
export class PgLeaderLock {
  private client?: pg.Client;
  private leader = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private busy = false;
  private pid?: number;

  constructor(private readonly opts: LeaderLockOptions) {}

  get isLeader(): boolean {
    return this.leader;
  }

  /** The server process id of the dedicated connection (for operators and tests), if connected. */
  get backendPid(): number | undefined {
    return this.client ? this.pid : undefined;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 2_000);
    this.timer.unref();
  }

  /** Releases the lock (ending the session releases it in any case) and stops trying. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    this.setLeader(false);
    await client?.end().catch(() => {});
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const client = this.client ?? (await this.connect());
      if (this.leader) {
        await withTimeout(client.query('SELECT 1'), this.opts.checkTimeoutMs ?? 5_000);
      } else {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [this.opts.key]);
        if (rows[0]?.ok === true && this.client === client && !this.stopped) this.setLeader(true);
      }
    } catch {
      this.lost();
    } finally {
      this.busy = false;
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.opts.url, keepAlive: true, keepAliveInitialDelayMillis: 5_000 });
    // A connection that fails (server restart, terminated backend, network) ends the leadership at once.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    this.pid = rows[0]?.pid;
    if (this.stopped) {
      await client.end();
      throw new Error('stopped');
    }
    this.client = client;
    return client;
  }

  private lost(client: pg.Client | undefined = this.client): void {
    if (client && client !== this.client) return;
    this.client = undefined;
    this.setLeader(false);
    void client?.end().catch(() => {});
  }

  private setLeader(leader: boolean): void {
    if (this.leader === leader) return;
    this.leader = leader;
    this.opts.onChange(leader);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
