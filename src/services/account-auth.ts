import type { Config } from '../config.js';
import type { SqlExecutor } from '../db/shared/executor.js';
import { SqlFlashRows } from '../db/shared/flash-rows.js';
import type { Accounts } from '../domain/accounts.js';
import { AuditLog } from '../domain/auth/audit.js';
import { Flashes } from '../domain/auth/flashes.js';
import { Invitations } from '../domain/auth/invitations.js';
import { Passwords, type ScryptParams } from '../domain/auth/passwords.js';
import { Sessions } from '../domain/auth/sessions.js';
import { SignInLinks } from '../domain/auth/sign-in-links.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { AuthRows } from './engine.js';

/** The dashboard's sign-in use cases (sessions, one-time links, passwords, audit log, invitations), also used by first start and the CLI. */
export interface AccountAuth {
  sessions: Sessions;
  signInLinks: SignInLinks;
  passwords: Passwords;
  audit: AuditLog;
  invitations: Invitations;
  /** One-time results of the dashboard's forms, sealed per session (src/domain/auth/flashes.ts). */
  flashes: Flashes;
}

export function accountAuth(rows: AuthRows, database: SqlExecutor, accounts: Accounts, ids: IdGenerator, clock: Clock, config: Config, scrypt?: ScryptParams): AccountAuth {
  return {
    sessions: new Sessions(rows.sessions, clock),
    signInLinks: new SignInLinks(rows.links, clock),
    passwords: new Passwords(rows.passwords, clock, scrypt),
    audit: new AuditLog(rows.audit, clock),
    invitations: new Invitations(rows.invitations, (email) => accounts.findUserByVerifiedEmail(email), ids, clock, config.invitationTtlMs),
    flashes: new Flashes(new SqlFlashRows(database), clock),
  };
}
