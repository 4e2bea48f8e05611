import { vi } from 'vitest';

/**
 * The one polling helper of the suite (no fixed sleeps): `vi.waitFor` retries
 * only on a throw, so a falsy answer is turned into one that says what was
 * awaited and what was last seen. Resolves with the first truthy answer.
 */
export function eventually<T>(check: () => T | Promise<T>, what: string, opts: { timeoutMs?: number; seen?: () => unknown } = {}): Promise<NonNullable<T>> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (!value) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(opts.seen ? opts.seen() : value)}`);
      return value as NonNullable<T>;
    },
    { timeout: opts.timeoutMs ?? 5_000, interval: 10 },
  );
}
