import { errorFromResponse, retryAfterSeconds } from './errors.js';

/** How a request is retried: network errors, 429 and 5xx, bounded, with jitter. */
export interface RetryOptions {
  /** Retries after the first attempt (default 4; 0 turns retrying off). */
  retries?: number;
  /** The first back-off step in ms (default 300); each retry doubles it, up to `maxDelayMs`. */
  minDelayMs?: number;
  /** The longest back-off step in ms (default 10 000). */
  maxDelayMs?: number;
  /** A Retry-After longer than this (ms, default 60 000) is not waited for: the answer is thrown. */
  maxRetryAfterMs?: number;
  /** Aborts the request and any wait between attempts. */
  signal?: AbortSignal;
  /** Another fetch (a test double, a proxy agent); default globalThis.fetch. */
  fetch?: typeof fetch;
}

const DEFAULTS = { retries: 4, minDelayMs: 300, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

/** True for the statuses a retry may cure: 408, 425, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * Sends `init()` (called afresh per attempt, so a body is never reused half-read) and returns the
 * first answer that is not retryable. A final failed answer is thrown as an AlertbridgeError; a
 * final network error is rethrown as it came.
 */
export async function fetchWithRetry(url: string, init: () => RequestInit, options: RetryOptions = {}): Promise<Response> {
  const o = { ...DEFAULTS, ...definedOnly(options) };
  const doFetch = options.fetch ?? globalThis.fetch;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await doFetch(url, { ...init(), signal: options.signal });
    } catch (err) {
      if (options.signal?.aborted || attempt >= o.retries) throw err;
      await sleep(backoff(attempt, o), options.signal);
      continue;
    }
    if (res.ok) return res;
    if (!isRetryableStatus(res.status) || attempt >= o.retries) throw await errorFromResponse(res);
    const after = retryAfterSeconds(res.headers.get('retry-after'));
    if (after !== undefined && after * 1000 > o.maxRetryAfterMs) throw await errorFromResponse(res);
    await res.body?.cancel().catch(() => undefined);
    // Retry-After is a floor; the jittered back-off is added so retries of many senders spread out.
    await sleep((after ?? 0) * 1000 + backoff(attempt, o), options.signal);
  }
}

/** "Equal jitter": half the exponential step, plus a random part of the other half (never 0). */
export function backoff(attempt: number, o: { minDelayMs: number; maxDelayMs: number }): number {
  const step = Math.min(o.maxDelayMs, o.minDelayMs * 2 ** attempt);
  return step / 2 + Math.random() * (step / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
