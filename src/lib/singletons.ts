import type { BackgroundPart } from './background-part.js';

/**
 * Whether this node runs the cluster's singletons (the Discord gateway, retention, maintenance):
 * one process on SQLite always does; on PostgreSQL the node holding the leader lock
 * (src/db/pg/leader.ts) does, and another takes over when it goes.
 */
export interface Leadership {
  readonly isLeader: boolean;
  /** Calls `listener` on every change; returns a function that unsubscribes. */
  subscribe(listener: (leader: boolean) => void): () => void;
}

/** A leadership others set: `set` from the leader lock's onChange, or once, for a sole node. */
export class LeadershipSignal implements Leadership {
  #leader: boolean;
  readonly #listeners = new Set<(leader: boolean) => void>();

  constructor(leader = false) {
    this.#leader = leader;
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  set(leader: boolean): void {
    if (leader === this.#leader) return;
    this.#leader = leader;
    for (const listener of [...this.#listeners]) listener(leader);
  }

  subscribe(listener: (leader: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The one node of a SQLite installation: always the leader. */
export const soleNode = (): Leadership => new LeadershipSignal(true);

/** What the singletons log (a pino logger fits). */
export interface SingletonLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface LeaderPart extends BackgroundPart {
  /** Whether the part is running on this node now. */
  readonly running: boolean;
  /** Settles once the part has been started or left stopped for the leadership as it was when created. */
  readonly settled: Promise<void>;
}

/**
 * Runs a singleton on the leader only: started when this node becomes the leader, stopped when it
 * stops being it, and stopped at shutdown. Starts and stops run one at a time in order, and each
 * step looks at the leadership when it runs, so a flip during a slow start ends with the part
 * stopped, never running twice or left behind. A start that fails is logged; the part is tried
 * again the next time this node becomes the leader.
 */
export function whileLeader(
  leadership: Leadership,
  name: string,
  /** Starts the part; null when it did not start and has said why itself (nothing to stop, tried again next time). */
  start: () => Promise<BackgroundPart | null> | BackgroundPart | null,
  logger: SingletonLog,
): LeaderPart {
  let part: BackgroundPart | null = null;
  let stopped = false;
  let queue: Promise<void> = Promise.resolve();

  const step = async () => {
    const wanted = leadership.isLeader && !stopped;
    if (wanted && !part) {
      try {
        part = await start();
        if (part) logger.debug({ part: name }, 'this node leads: started');
      } catch (err) {
        logger.error({ err, part: name }, 'starting a singleton failed; tried again when this node next leads');
      }
    } else if (!wanted && part) {
      const running = part;
      part = null;
      try {
        await running.stop();
      } catch (err) {
        logger.error({ err, part: name }, 'stopping a singleton failed');
      }
      if (!stopped) logger.info({ part: name }, 'this node no longer leads: stopped');
    }
  };
  // Every change queues a step; the step re-reads the leadership, so queued flips collapse.
  const reconcile = () => (queue = queue.then(step));
  const unsubscribe = leadership.subscribe(() => void reconcile());
  const settled = reconcile();

  return {
    name,
    get running() {
      return part !== null;
    },
    settled,
    async stop() {
      stopped = true;
      unsubscribe();
      await reconcile();
    },
  };
}
