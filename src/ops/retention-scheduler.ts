import type { BackgroundPart } from '../lib/background-part.js';
import type { Logger } from '../lib/logger.js';
import type { RetentionPassResult, RetentionPruner } from '../domain/retention.js';

export interface RetentionScheduler extends BackgroundPart {
  /** Runs one pass now, or waits for the one in progress (tests). */
  runOnce(): Promise<RetentionPassResult | undefined>;
}

/**
 * Runs a retention pass at start and then every `intervalMs` after the previous
 * pass ended (passes never overlap). A failed pass is logged and retried at the
 * next interval. stop() ends a pass between two batches and waits for it.
 */
export function startRetentionScheduler(pruner: RetentionPruner, logger: Logger, intervalMs: number): RetentionScheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<RetentionPassResult | undefined> | undefined;

  const runOnce = () => {
    running ??= pruner
      .pass(() => stopped)
      .then(
        (r) => {
          if (r.deleted) logger.info(r, 'retention pruned alerts');
          return r;
        },
        (err: unknown) => {
          logger.error({ err }, 'retention pass failed');
          return undefined;
        },
      )
      .finally(() => {
        running = undefined;
        arm();
      });
    return running;
  };
  const arm = () => {
    if (stopped) return;
    clearTimeout(timer);
    // unref: a pending pass must not keep a stopping process alive.
    timer = setTimeout(() => void runOnce(), intervalMs).unref();
  };

  void runOnce();
  return {
    name: 'retention',
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
