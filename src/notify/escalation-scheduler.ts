import type { ChangeBus } from '../domain/changes.js';
import type { EscalationPass } from '../domain/escalation/escalation-pass.js';
import type { Clock } from '../lib/clock.js';
import type { BackgroundPart } from '../lib/background-part.js';
import type { Logger } from '../lib/logger.js';

/**
 * The longest the scheduler sleeps. New and changed alerts are armed at the next pass: steps are at
 * least 30 s apart, so a few seconds' delay costs nothing, and the webhook's hot path wakes nobody.
 */
export const ESCALATION_POLL_MS = 5_000;
/** A step due "now" that keeps failing must not spin: durations are whole seconds anyway. */
const MIN_SLEEP_MS = 1_000;

export interface EscalationScheduler extends BackgroundPart {
  /** Runs passes until nothing is left to do now, or waits for the one in progress (tests). */
  runOnce(): Promise<void>;
}

/**
 * Runs escalation passes on the leader (src/runtime.ts starts it as a singleton): at the next due
 * step, and every `pollMs` at most, never more often than `MIN_SLEEP_MS`. Passes never overlap; a
 * failed one is logged and tried again at the next wake-up. A pass that sent a step wakes the e-mail
 * and push workers, which deliver it from the outbox.
 */
export function startEscalationScheduler(
  deps: { escalation: { pass: EscalationPass }; bus: ChangeBus; clock: Clock; logger: Logger },
  opts: { pollMs?: number } = {},
): EscalationScheduler {
  const pollMs = opts.pollMs ?? ESCALATION_POLL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const passes = async () => {
    for (;;) {
      const { sent, more } = await deps.escalation.pass.run();
      if (sent > 0) {
        deps.logger.info({ steps: sent }, 'escalation steps queued');
        deps.bus.emit('notifications');
      }
      if (!more || stopped) return;
    }
  };
  const runOnce = () => {
    running ??= passes()
      .catch((err: unknown) => deps.logger.error({ err }, 'escalation pass failed'))
      .finally(() => {
        running = undefined;
        void arm();
      });
    return running;
  };
  const sleep = (ms: number) => {
    clearTimeout(timer);
    // unref: a pending pass must not keep a stopping process alive.
    timer = setTimeout(() => void runOnce(), Math.max(MIN_SLEEP_MS, ms)).unref();
  };
  const arm = async () => {
    if (stopped) return;
    let next: number | null = null;
    try {
      next = await deps.escalation.pass.nextDue();
    } catch (err) {
      deps.logger.warn({ err }, 'escalation: next due time unknown; polling');
    }
    if (stopped || running) return;
    sleep(Math.min(pollMs, next === null ? pollMs : next - deps.clock.now()));
  };
  void runOnce();
  return {
    name: 'escalation',
    runOnce: async () => {
      await running;
      await runOnce();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
