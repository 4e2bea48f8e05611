import type { AppSecretRows } from '../../domain/auth/app-secrets.js';
import { APP_SECRET, INSERT_APP_SECRET } from '../shared/auth-rows.js';
import type { SqliteExecutor } from './executor.js';

/**
 * app_secrets on SQLite, read synchronously while the process builds its parts (the PostgreSQL
 * start-up awaits the same statements through SqlAppSecretRows, src/db/shared/auth-rows.ts).
 */
export class SqliteAppSecretRows implements AppSecretRows {
  constructor(private readonly database: SqliteExecutor) {}

  insertIfAbsent(name: string, value: string, now: number): void {
    this.database.runNow(INSERT_APP_SECRET, { name, value, now });
  }

  get(name: string): string | undefined {
    return this.database.getNow(APP_SECRET, { name })?.value;
  }
}
