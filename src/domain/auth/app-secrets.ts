import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** The app_secrets rows (src/db/sqlite/app-secret-rows.ts). */
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
  rows.insertIfAbsent(name, newAppSecretValue(), clock.now());
  const value = rows.get(name);
  // Unreachable unless the row was deleted between the two statements.
  if (value === undefined) throw new Error(`app secret ${name} vanished`);
  return Buffer.from(value, 'base64');
}

/** A fresh value for `appSecret`: 32 random bytes, base64. */
export function newAppSecretValue(): string {
  return randomBytes(32).toString('base64');
}

/** The name of the unsubscribe links' HMAC key (src/domain/auth/unsubscribe-links.ts). */
export const UNSUBSCRIBE_SECRET_NAME = 'unsubscribe-hmac';

/** The app_secrets rows where reads are asynchronous (PostgreSQL: src/db/shared/auth-rows.ts). */
export interface AsyncAppSecretRows {
  /** Keeps an existing value (`ON CONFLICT DO NOTHING`): nodes starting together agree on the first one stored. */
  insertIfAbsent(name: string, value: string, now: number): Promise<void>;
  get(name: string): Promise<string | undefined>;
}

/**
 * Reads the secrets a process uses, each created with `fresh[name]()` when missing, before
 * anything is built: the use cases then read them synchronously from what this returns. Every
 * node starting on an empty database inserts its own candidate and keeps the stored one, so all
 * of them sign alike.
 */
export async function loadAppSecrets(rows: AsyncAppSecretRows, fresh: Record<string, () => string>, now: number): Promise<AppSecretRows> {
  const values = new Map<string, string>();
  for (const [name, make] of Object.entries(fresh)) {
    await rows.insertIfAbsent(name, make(), now);
    const value = await rows.get(name);
    if (value === undefined) throw new Error(`app secret ${name} vanished`);
    values.set(name, value);
  }
  return {
    insertIfAbsent: (name) => {
      if (!values.has(name)) throw new Error(`app secret ${name} was not loaded at start (services.ts)`);
    },
    get: (name) => values.get(name),
  };
}
