import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** The app_secrets rows (src/db/auth-rows.ts). */
export interface AppSecretRows {
  /** Keeps an existing value: two first uses at once agree on the winner. */
  insertIfAbsent(name: string, value: string, now: number): void;
  get(name: string): string | undefined;
}

/**
 * A named 32-byte key, created on first use and then read from the database:
 * every process on the same data (server, CLI, another node) gets the same one.
 */
export function appSecret(rows: AppSecretRows, clock: Clock, name: string): Buffer {
  rows.insertIfAbsent(name, randomBytes(32).toString('base64'), clock.now());
  const value = rows.get(name);
  // Unreachable unless the row was deleted between the two statements.
  if (value === undefined) throw new Error(`app secret ${name} vanished`);
  return Buffer.from(value, 'base64');
}
