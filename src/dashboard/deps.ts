import type { AuditLog } from '../domain/auth/audit.js';
import type { Invitations } from '../domain/auth/invitations.js';
import type { Flashes } from '../domain/auth/flashes.js';
import type { Passwords } from '../domain/auth/passwords.js';
import type { Sessions } from '../domain/auth/sessions.js';
import type { SignInLinks } from '../domain/auth/sign-in-links.js';
import type { Limiter } from '../domain/rate-limiter.js';
import { SmtpMailer, type Mailer } from '../notify/mailer.js';
import { accountsAdapter } from './accounts-adapter.js';
import type { DashboardServices } from './dashboard-services.js';
import type { DashboardAccounts } from './ports.js';
import type { UnsubscribeLinks } from '../domain/auth/unsubscribe-links.js';
import type { SignInPolicy } from '../domain/auth/sso/single-sign-on.js';
import { RelyingParty } from './sso/relying-party.js';


export interface DashboardOptions {
  mailer?: Mailer | null;
}

/** Everything the dashboard's routes use, built once per app from the shared services. */
export interface DashboardDeps {
  services: DashboardServices;
  accounts: DashboardAccounts;
  sessions: Sessions;
  links: SignInLinks;
  passwords: Passwords;
  audit: AuditLog;
  invitations: Invitations;
  /** One-time results of forms, shown once on the page a POST redirects to. */
  flashes: Flashes;
  unsubscribe: UnsubscribeLinks;
  mailer: Mailer | null;
  signInPerEmail: Limiter;
  signInPerAddress: Limiter;
  /** https PUBLIC_URL → `__Host-` cookie with Secure. */
  secureCookies: boolean;
  cookieName: string;
  origin: string;
  /** OpenID Connect, when OIDC_ISSUER is set (docs/sso.md). */
  relyingParty: RelyingParty | undefined;
  ssoPolicy: SignInPolicy;
}

export function createDashboardDeps(services: DashboardServices, opts: DashboardOptions = {}): DashboardDeps {
  const { config } = services;
  const auth = services.accountAuth;
  const secureCookies = config.publicUrl.startsWith('https:');
  return {
    services,
    accounts: accountsAdapter(services),
    // Built once in the composition root (src/services.ts), shared with first start and the CLI.
    sessions: auth.sessions,
    links: auth.signInLinks,
    passwords: auth.passwords,
    audit: auth.audit,
    invitations: auth.invitations,
    flashes: auth.flashes,
    unsubscribe: services.unsubscribe,
    mailer: opts.mailer !== undefined ? opts.mailer : config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null,
    // Built with the services: shared by the nodes on PostgreSQL, like the API's.
    signInPerEmail: services.signInLimiters.perEmail,
    signInPerAddress: services.signInLimiters.perAddress,
    secureCookies,
    cookieName: secureCookies ? '__Host-ab_session' : 'ab_session',
    origin: new URL(config.publicUrl).origin,
    relyingParty: config.sso.oidc ? new RelyingParty(config.sso.oidc, `${config.publicUrl}/auth/oidc/callback`) : undefined,
    ssoPolicy: { linkByEmail: config.sso.oidc?.linkByEmail ?? false, allowedDomains: config.sso.oidc?.allowedDomains ?? [] },
  };
}
