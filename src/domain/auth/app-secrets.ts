import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';

/**
 * A named 32-byte key, created on first use and then read from the database:
 * every process on the same data (server, CLI, another node) gets the same one.
 * INSERT OR IGNORE makes two first uses at once agree on the winner.
 */
export function appSecret(sqlite: Database.Database, clock: Clock, name: string): Buffer {
  sqlite.prepare('INSERT OR IGNORE INTO app_secrets (name, value, created_at) VALUES (?, ?, ?)').run(name, randomBytes(32).toString('base64'), clock.now());
  return Buffer.from(sqlite.prepare('SELECT value FROM app_secrets WHERE name = ?').pluck().get(name) as string, 'base64');
}
