import PQueue from 'p-queue';

/** What a worker over due rows (the e-mail outbox, Web Push) supplies to the pass loop. */
export interface DueWork {
  /**
   * One pass at `now`: select what is due and `enqueue` it (at most `room`
   * more tasks than are in flight), plus any housekeeping. Never called twice
   * at once.
   */
  pass(now: number, room: number, enqueue: (key: string, task: () => Promise<void>) => boolean): Promise<void>;
  /** The earliest future due time, or null: the timer sleeps until then (at most the poll interval). */
  nextDue(): Promise<number | null>;
  /** Whether anything is due at `now` (for `whenIdle`). */
  anythingDue(now: number): Promise<boolean>;
  /** A task threw (it should record its own outcome; this only logs). */
  taskFailed(err: unknown, key: string): void;
  /** A pass threw: logged, and the next wake-up or timer tries again. */
  passFailed(err: unknown): void;
}

export interface DuePassOptions {
  concurrency: number;
  pollIntervalMs: number;
  now: () => number;
}

/**
 * The scheduling both notification workers share: wake-ups coalesced into one
 * pass per event-loop turn, one pass at a time (a wake-up during a pass re-arms
 * it), tasks run on a bounded queue keyed so a row is never in flight twice,
 * and a timer for the earliest future due time, never longer than the poll
 * interval. Rows are claimed by the tasks themselves (in the store), so
 * stopping only has to wait for the tasks that started.
 */
export class DuePasses {
  readonly queue: PQueue;
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private wakeQueued = false;
  private passRunning = false;
  private again = false;
  private stopped = true;
  private ready: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly work: DueWork,
    private readonly options: DuePassOptions,
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Starts passing; the first pass waits for `ready` (the crash recovery of rows left mid-send). */
  start(ready: Promise<unknown> = Promise.resolve()): void {
    if (!this.stopped) return;
    this.ready = ready;
    this.stopped = false;
    this.wake();
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** Stops taking work and waits for the tasks in flight; queued-but-not-started ones claimed nothing and stay due. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.queue.clear();
    await this.queue.onIdle();
  }

  /** Schedules a pass over due work (coalesced: many wake-ups in one turn make one pass). */
  wake(): void {
    if (this.wakeQueued || this.stopped) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      void this.pump();
    });
  }

  /** Resolves once nothing is due now and nothing is in flight (tests and diagnostics; future retries do not count). */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      await this.queue.onIdle();
      const busy = this.wakeQueued || this.passRunning || this.inFlight.size > 0;
      if (this.stopped || (!busy && !(await this.work.anythingDue(this.options.now())))) return;
      this.wake();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Requests another pass once the current one ends (work found during a pass that did not fit). */
  passAgain(): void {
    this.again = true;
  }

  private enqueue = (key: string, task: () => Promise<void>): boolean => {
    if (this.inFlight.has(key)) return false;
    this.inFlight.add(key);
    void this.queue.add(async () => {
      try {
        await task();
      } catch (err) {
        this.work.taskFailed(err, key);
      } finally {
        this.inFlight.delete(key);
        this.wake();
      }
    });
    return true;
  };

  private async pump(): Promise<void> {
    if (this.stopped) return;
    // One pass at a time: a wake-up during a pass is picked up by the re-arm at its end.
    if (this.passRunning) {
      this.again = true;
      return;
    }
    this.passRunning = true;
    try {
      await this.ready;
      const now = this.options.now();
      const room = this.options.concurrency * 2 - (this.queue.size + this.queue.pending);
      await this.work.pass(now, room, this.enqueue);
      await this.arm(now);
    } catch (err) {
      this.work.passFailed(err);
    } finally {
      this.passRunning = false;
    }
    if (this.again) {
      this.again = false;
      this.wake();
    }
  }

  /**
   * Sleeps until the earliest future due time, never longer than the poll
   * interval. `now` is the time this pass enqueued with: a row that became due
   * since then is in the future for it, so it gets a short timer instead of
   * waiting for the poll.
   */
  private async arm(now: number): Promise<void> {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const next = await this.work.nextDue();
    // Work due at `now` is either in flight or waiting for queue room: its completion wakes us.
    const delay = next === null || next <= now ? this.options.pollIntervalMs : Math.min(next - now, this.options.pollIntervalMs);
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  /** Keys in flight (a pass asks for `room + inFlight` rows, since rows in flight are still due). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }
}
