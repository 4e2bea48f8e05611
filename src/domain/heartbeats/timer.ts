import type { BackgroundPart } from '../../lib/background-part.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { HeartbeatAlerts } from './alerts.js';
import type { HeartbeatRows } from './ports.js';

const BATCH = 500;
/** The longest the timer sleeps: a ping on another node may have moved a due time earlier. */
export const MAX_SLEEP_MS = 5_000;

export interface PassResult {
  wentDown: number;
  alertsWritten: number;
}

/**
 * The heartbeat timer: runs on one node (the leader on PostgreSQL; src/runtime.ts). Each pass moves
 * every overdue check down once (a conditional write on its stored due time, so a restart or a
 * second node never moves it twice) and writes the alerts the rows say are owed. It then sleeps
 * until the earliest due time.
 */
export class HeartbeatTimer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private wakeAt = Infinity;

  constructor(
    private readonly rows: HeartbeatRows,
    private readonly alerts: HeartbeatAlerts,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async pass(): Promise<PassResult> {
    const now = this.clock.now();
    let wentDown = 0;
    for (;;) {
      const moved = await this.rows.markOverdue(now, BATCH);
      wentDown += moved.length;
      if (moved.length < BATCH) break;
    }
    let alertsWritten = 0;
    for (;;) {
      const owing = await this.rows.owingAlerts(BATCH);
      let progressed = 0;
      for (const c of owing) {
        try {
          if (await this.alerts.reconcile(c)) progressed++;
        } catch (err) {
          this.logger.error({ err, check: c.id }, 'heartbeat alert failed');
        }
      }
      alertsWritten += progressed;
      if (owing.length < BATCH || progressed === 0) break;
    }
    if (wentDown || alertsWritten) this.logger.info({ wentDown, alertsWritten }, 'heartbeat checks changed');
    return { wentDown, alertsWritten };
  }

  start(): BackgroundPart {
    this.stopped = false;
    this.arm(0);
    return {
      name: 'heartbeats',
      stop: async () => {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
      },
    };
  }

  /** A ping set a due time: wake earlier if it is before the one the timer sleeps to. */
  dueChanged(at: number | null): void {
    if (this.stopped || at === null || at >= this.wakeAt) return;
    this.arm(Math.max(0, at - this.clock.now()));
  }

  private arm(delayMs: number) {
    clearTimeout(this.timer);
    this.wakeAt = this.clock.now() + delayMs;
    this.timer = setTimeout(() => void this.tick(), delayMs).unref();
  }

  private async tick() {
    if (this.stopped || this.running) return;
    this.running = (async () => {
      let next: number | null = null;
      try {
        await this.pass();
        next = await this.rows.nextDownAt();
      } catch (err) {
        this.logger.error({ err }, 'heartbeat pass failed');
      }
      this.running = undefined;
      if (!this.stopped) this.arm(Math.min(MAX_SLEEP_MS, Math.max(0, (next ?? Infinity) - this.clock.now())));
    })();
    await this.running;
  }
}
