import { SqliteAuditRows, SqlitePasswordRows, SqliteSessionRows, SqliteSignInLinkRows } from '../db/auth-rows.js';
import { AuditLog } from '../domain/auth/audit.js';
import { Passwords, type ScryptParams } from '../domain/auth/passwords.js';
import { Sessions } from '../domain/auth/sessions.js';
import { SignInLinks } from '../domain/auth/sign-in-links.js';
import { RateLimiter } from '../lib/rate-limiter.js';
import { SmtpMailer, type Mailer } from '../notify/mailer.js';
import type { Services } from '../services.js';
import { accountsAdapter } from './accounts-adapter.js';
import type { DashboardAccounts } from './ports.js';
import type { UnsubscribeLinks } from '../domain/auth/unsubscribe-links.js';

/** Sign-in attempts per minute per e-mail address: enough for typos, far too few for guessing. */
export const SIGN_IN_PER_EMAIL_PER_MINUTE = 5;
/** Per client address: an office behind one NAT signs in together. */
export const SIGN_IN_PER_ADDRESS_PER_MINUTE = 30;

export interface DashboardOptions {
  /** Tests lower the scrypt cost; production always uses OWASP's parameters. */
  scrypt?: ScryptParams;
  mailer?: Mailer | null;
}

/** Everything the dashboard's routes use, built once per app from the shared services. */
export interface DashboardDeps {
  services: Services;
  accounts: DashboardAccounts;
  sessions: Sessions;
  links: SignInLinks;
  passwords: Passwords;
  audit: AuditLog;
  unsubscribe: UnsubscribeLinks;
  mailer: Mailer | null;
  signInPerEmail: RateLimiter;
  signInPerAddress: RateLimiter;
  /** https PUBLIC_URL → `__Host-` cookie with Secure. */
  secureCookies: boolean;
  cookieName: string;
  origin: string;
}

export function createDashboardDeps(services: Services, opts: DashboardOptions = {}): DashboardDeps {
  const { config, clock } = services;
  const sqlite = services.db.sqlite;
  const secureCookies = config.publicUrl.startsWith('https:');
  return {
    services,
    accounts: accountsAdapter(services),
    sessions: new Sessions(new SqliteSessionRows(sqlite), clock),
    links: new SignInLinks(new SqliteSignInLinkRows(sqlite), clock),
    passwords: new Passwords(new SqlitePasswordRows(sqlite), clock, opts.scrypt),
    audit: new AuditLog(new SqliteAuditRows(sqlite), clock),
    unsubscribe: services.unsubscribe,
    mailer: opts.mailer !== undefined ? opts.mailer : config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null,
    signInPerEmail: new RateLimiter(SIGN_IN_PER_EMAIL_PER_MINUTE, clock),
    signInPerAddress: new RateLimiter(SIGN_IN_PER_ADDRESS_PER_MINUTE, clock),
    secureCookies,
    cookieName: secureCookies ? '__Host-ab_session' : 'ab_session',
    origin: new URL(config.publicUrl).origin,
  };
}
