import { signInUrl } from './dashboard/sign-in-link.js';
import { SqliteSignInLinkRows } from './db/auth-rows.js';
import { SignInLinks } from './domain/auth/sign-in-links.js';
import type { Services } from './services.js';

/**
 * The owner's address when BOOTSTRAP_OWNER_EMAIL is unset. It can receive no
 * mail, so the dashboard asks for the real address at the first sign-in.
 */
export const BOOTSTRAP_PLACEHOLDER_EMAIL = 'owner@localhost.localdomain';

export interface BootstrapResult {
  workspace: { id: string; name: string };
  user: { id: string; email: string; name: string };
  channel: { id: string; slug: string; webhookToken: string };
  token: string;
  /** One-time dashboard sign-in link for the owner (15 minutes). */
  signIn: { url: string; expiresAt: number };
}

/**
 * First start on an empty store: one workspace, its owner, a `general` channel
 * and an API token, so the service is usable at once. Returns null when the
 * store already has a workspace (so it runs once).
 */
export function bootstrapIfEmpty(s: Services): BootstrapResult | null {
  // IMMEDIATE: the check and the writes hold the write lock together, so two
  // processes started on one data directory cannot both set it up.
  return s.db.sqlite.transaction((): BootstrapResult | null => {
    if (s.db.sqlite.prepare('SELECT 1 FROM workspaces LIMIT 1').get()) return null;
    const workspace = s.accounts.createWorkspace('My workspace');
    const user = s.accounts.createUser(s.config.bootstrapOwnerEmail ?? BOOTSTRAP_PLACEHOLDER_EMAIL, 'Owner');
    s.accounts.addMember(workspace.id, user.id, 'owner');
    const channel = s.accounts.createChannel({ workspaceId: workspace.id, name: 'general', icon: '📢' });
    const { token } = s.accounts.createToken(workspace.id, user.id, 'bootstrap');
    const link = new SignInLinks(new SqliteSignInLinkRows(s.db.sqlite), s.clock).issue(user.id);
    return { workspace, user, channel, token, signIn: { url: signInUrl(s.config.publicUrl, link.secret), expiresAt: link.expiresAt } };
  }).immediate();
}

/** The one-time banner. Printed to stdout, never through the logger (logs carry no secrets). */
export function bootstrapBanner(b: BootstrapResult, publicUrl: string): string {
  const webhookUrl = `${publicUrl}/api/webhook/${b.channel.webhookToken}`;
  return [
    '',
    '  Alertbridge is set up. This is shown ONCE: keep the token somewhere safe.',
    '',
    `  Workspace   ${b.workspace.name} (${b.workspace.id})`,
    `  Owner       ${b.user.email} (${b.user.id})`,
    `  Channel     #${b.channel.slug} (${b.channel.id})`,
    `  Webhook URL ${webhookUrl}`,
    `  API token   ${b.token}`,
    `  Dashboard   ${b.signIn.url}`,
    `              (one-time sign-in link, valid until ${new Date(b.signIn.expiresAt).toISOString()}; later: npm run --silent admin -- login-link --email ${b.user.email})`,
    '',
    '  Send an alert:',
    `    curl -X POST ${webhookUrl} -H 'Content-Type: application/json' -d '{"title":"Hello from Alertbridge","level":"success","emoji":"rocket"}'`,
    '',
    '  Read it back:',
    `    curl ${publicUrl}/api/channels/${b.channel.slug}/alerts -H 'Authorization: Bearer ${b.token}'`,
    '',
  ].join('\n');
}
