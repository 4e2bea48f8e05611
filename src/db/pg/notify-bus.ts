import pg from 'pg';

/**
 * Topics the nodes of a cluster tell each other about. Each is a PostgreSQL notification channel
 * named `alertbridge:<topic>`.
 */
export const TOPICS = {
  /**
   * A webhook channel's token, secret, name or Discord link changed, or it was removed: every node
   * drops its channel cache (src/db/pg/webhook-channels.ts). Published by triggers
   * (drizzle-pg/0004_cluster_coordination.sql), so every writer publishes it.
   */
  webhookChannels: 'webhook-channels',
  /** Alert events were appended to the change log: live streams on every node read it now rather than at their next poll. */
  alertEvents: 'alert-events',
  /** A user's read state changed (payload: the origin node and the change): their live streams on other nodes update the unread counts. */
  readState: 'read-state',
  /** Outbox jobs were written (payload: the origin node): the e-mail and push workers of other nodes look now, not at their next poll. */
  notifications: 'notifications',
  /** A ping set a heartbeat check's due time under the timer's longest sleep (payload: origin node and time): the leader's timer wakes for it. */
  heartbeatDue: 'heartbeat-due',
} as const;

const CHANNEL_PREFIX = 'alertbridge:';
/** PostgreSQL's identifier limit (NAMEDATALEN - 1), which notification channels share. */
const MAX_CHANNEL_BYTES = 63;
/** PostgreSQL refuses a payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_999;

/**
 * Sends a notification on `topic` through `via`: inside a transaction, at its COMMIT (and not at
 * all on ROLLBACK). For writers that hold a transaction but no bus (the change log's appends).
 */
export async function publishVia(via: Queryable, topic: string, payload = ''): Promise<void> {
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`notification payload over ${MAX_PAYLOAD_BYTES} bytes`);
  await via.query('SELECT pg_notify($1, $2)', [channelOf(topic), payload]);
}

/** A pool or a client inside a transaction: what `publish` sends `pg_notify` through. */
export interface Queryable {
  query(text: string, values: string[]): Promise<unknown>;
}

export interface BusSubscriber {
  /** A notification on the topic, delivered after the transaction that published it committed. */
  message(payload: string): void;
  /** This node listens to the topic again after a time it did not (first connection, reconnection): notifications of that time were missed. */
  resumed?(): void;
  /** This node stopped listening to the topic (its connection was lost): notifications may be missed until `resumed`. */
  lost?(): void;
}

export interface NotifyBusOptions {
  /** The database URL: the bus keeps one dedicated connection of its own (LISTEN belongs to a session). */
  url: string;
  /** Where `publish` sends outside a transaction. */
  pool: Queryable;
  /** Wait between a lost connection and the next attempt; default 1 s. */
  reconnectMs?: number;
  /** How often the listening connection is checked with a query (a silently dead one counts as lost); default 5 s. */
  checkIntervalMs?: number;
  /** A check that takes longer than this counts as lost; default 5 s. */
  checkTimeoutMs?: number;
}

/**
 * Cross-node notifications over PostgreSQL LISTEN/NOTIFY: one dedicated listening connection per
 * node (a pg.Client, never a pooled one), reconnected after any error, end or failed check.
 * Notifications are not queued for a node that is not listening, so subscribers are told when
 * listening stops (`lost`) and starts again (`resumed`) and must re-validate whatever they keep:
 * a gap never leaves a node on stale state.
 *
 * Subscribe before `start` to listen from the first connection; a later subscription to a new topic
 * is listened to once its LISTEN completes (`resumed` says when).
 */
export class PgNotifyBus {
  private readonly subs = new Map<string, Set<BusSubscriber>>();
  private readonly listened = new Set<string>();
  private client?: pg.Client;
  private pid?: number;
  private stopped = true;
  private checking = false;
  private checkTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;

  constructor(private readonly opts: NotifyBusOptions) {}

  /** The server process id of the listening connection (for operators and tests), if connected. */
  get backendPid(): number | undefined {
    return this.client ? this.pid : undefined;
  }

  /** Whether notifications on `topic` reach this node now. */
  isListening(topic: string): boolean {
    return this.listened.has(topic);
  }

  /** Connects and listens; resolves after the first attempt (a failed one is retried in the background). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.checkTimer = setInterval(() => void this.check(), this.opts.checkIntervalMs ?? 5_000);
    this.checkTimer.unref();
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.checkTimer);
    clearTimeout(this.retryTimer);
    await this.lost(this.client);
  }

  /** Subscribes to a topic; returns the unsubscribe function. */
  subscribe(topic: string, sub: BusSubscriber): () => void {
    const channel = channelOf(topic);
    let set = this.subs.get(topic);
    if (!set) {
      set = new Set();
      this.subs.set(topic, set);
      const client = this.client;
      if (client && this.pid !== undefined) void this.listen(client, topic, channel);
    }
    set.add(sub);
    return () => {
      set.delete(sub);
    };
  }

  /**
   * Sends a notification on `topic` to every node (this one included). Through a client inside a
   * transaction it is sent at COMMIT, and not at all on ROLLBACK; identical notifications of one
   * transaction are folded into one.
   */
  publish(topic: string, payload = '', via: Queryable = this.opts.pool): Promise<void> {
    return publishVia(via, topic, payload);
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.client) return;
    // A connection attempt that hangs (unreachable server) fails after the check timeout and is retried.
    const client = new pg.Client({
      connectionString: this.opts.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      connectionTimeoutMillis: this.opts.checkTimeoutMs ?? 5_000,
    });
    this.client = client;
    this.pid = undefined;
    client.on('error', () => void this.lost(client));
    client.on('end', () => void this.lost(client));
    client.on('notification', (n) => this.deliver(client, n));
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      if (this.client !== client) return;
      this.pid = rows[0]?.pid;
      for (const topic of [...this.subs.keys()]) await this.listen(client, topic, channelOf(topic));
    } catch {
      void this.lost(client);
    }
  }

  private async listen(client: pg.Client, topic: string, channel: string): Promise<void> {
    try {
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch {
      void this.lost(client);
      return;
    }
    if (this.client !== client || this.listened.has(topic)) return;
    this.listened.add(topic);
    for (const sub of this.subs.get(topic) ?? []) callSafely(() => sub.resumed?.());
  }

  private deliver(client: pg.Client, n: pg.Notification): void {
    if (client !== this.client || !n.channel.startsWith(CHANNEL_PREFIX)) return;
    const topic = n.channel.slice(CHANNEL_PREFIX.length);
    for (const sub of this.subs.get(topic) ?? []) callSafely(() => sub.message(n.payload ?? ''));
  }

  /** Checks the connection with a query; reconnects when there is none. */
  private async check(): Promise<void> {
    const client = this.client;
    if (!client || this.pid === undefined || this.checking) return;
    this.checking = true;
    try {
      await withTimeout(client.query('SELECT 1'), this.opts.checkTimeoutMs ?? 5_000);
    } catch {
      void this.lost(client);
    } finally {
      this.checking = false;
    }
  }

  /** Drops the connection (once) and schedules the next; resolves when the old one has ended. */
  private lost(client: pg.Client | undefined): Promise<void> {
    if (!client || client !== this.client) return Promise.resolve();
    this.client = undefined;
    this.pid = undefined;
    const topics = [...this.listened];
    this.listened.clear();
    for (const topic of topics) for (const sub of this.subs.get(topic) ?? []) callSafely(() => sub.lost?.());
    const ended = client.end().catch(() => {});
    if (!this.stopped) {
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => void this.connect(), this.opts.reconnectMs ?? 1_000);
      this.retryTimer.unref();
    }
    return ended;
  }
}

/** The PostgreSQL notification channel of a topic (for a statement that notifies itself, such as the change log's append). */
export function channelOf(topic: string): string {
  const channel = CHANNEL_PREFIX + topic;
  if (topic === '' || Buffer.byteLength(channel) > MAX_CHANNEL_BYTES) throw new Error(`notification topic "${topic}" is empty or too long`);
  return channel;
}

/** One subscriber's failure must neither reach the connection's event handler nor keep the others from hearing. */
function callSafely(f: () => void): void {
  try {
    f();
  } catch {
    // The subscriber's own error: the bus carries on.
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
