export interface RetryPolicy {
  /** Attempts in total, the first one included; after the last the row is `failed`. */
  maxAttempts: number;
  /** Delay before the 2nd attempt; doubles each time. */
  baseDelayMs: number;
  /** Cap on one delay (before jitter). */
  maxDelayMs: number;
}

/**
 * 8 attempts, 10 s doubling, capped at 15 min: delays of about 10 s, 20 s,
 * 40 s, 80 s, 160 s, 320 s, 640 s (≈ 21 minutes of trying, which rides out an
 * SMTP server restart or a greylisting 451) before giving up.
 */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 10_000, maxDelayMs: 15 * 60_000 };

/**
 * Delay after the `attempt`-th failed attempt (1-based): exponential with
 * "equal jitter" — half the delay fixed, half random — so retries of many
 * recipients after one outage spread out, yet never fire almost immediately.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
