import { signInUrl } from './dashboard/sign-in-link.js';
import { Accounts } from './domain/accounts.js';
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
 * store already has a workspace (so it runs once). The sign-in link is issued
 * after the set-up commits (the link rows return Promises): should that fail,
 * `admin login-link` gives the owner one.
 */
export async function bootstrapIfEmpty(services: Services): Promise<BootstrapResult | null> {
  // One unit (src/db/sqlite/first-start.ts, src/db/pg/first-start.ts): two processes or nodes started
  // on one empty database cannot both set it up, and a failure half-way leaves nothing.
  const made = await services.firstStart.ifEmpty(async (rows) => {
    const accounts = new Accounts(rows, services.ids, services.clock, services.config.tokenPrefix);
    const workspace = await accounts.createWorkspace('My workspace');
    // BOOTSTRAP_OWNER_EMAIL is the operator's word, so verified; the placeholder is nobody's mailbox.
    const ownerEmail = services.config.bootstrapOwnerEmail;
    const user = await accounts.createUser(ownerEmail ?? BOOTSTRAP_PLACEHOLDER_EMAIL, 'Owner', { verified: ownerEmail !== undefined });
    await accounts.addMember(workspace.id, user.id, 'owner');
    const channel = await accounts.createChannel({ workspaceId: workspace.id, name: 'general', icon: '📢' });
    const { token } = await accounts.createToken(workspace.id, user.id, 'bootstrap');
    return { workspace, user, channel, token };
  });
  if (!made) return null;
  // Written by an Accounts bound to the unit, not the service's: the webhook look-up forgets what it cached.
  services.webhookChannels.invalidate();
  const link = await services.accountAuth.signInLinks.issue(made.user.id);
  return { ...made, signIn: { url: signInUrl(services.config.publicUrl, link.secret), expiresAt: link.expiresAt } };
}

/** The one-time banner: to a terminal, or else to DATA_DIR/first-start.txt (src/first-start-file.ts); never through the logger. */
export function bootstrapBanner(setup: BootstrapResult, publicUrl: string): string {
  const webhookUrl = `${publicUrl}/api/webhook/${setup.channel.webhookToken}`;
  return [
    '',
    '  Alertbridge is set up. This is shown ONCE: keep the token somewhere safe.',
    '',
    `  Workspace   ${setup.workspace.name} (${setup.workspace.id})`,
    `  Owner       ${setup.user.email} (${setup.user.id})`,
    `  Channel     #${setup.channel.slug} (${setup.channel.id})`,
    `  Webhook URL ${webhookUrl}`,
    `  API token   ${setup.token}`,
    `  Dashboard   ${setup.signIn.url}`,
    `              (one-time sign-in link, valid until ${new Date(setup.signIn.expiresAt).toISOString()}; later: npm run --silent admin -- login-link --email ${setup.user.email})`,
    '',
    '  Send an alert:',
    `    curl -X POST ${webhookUrl} -H 'Content-Type: application/json' -d '{"title":"Hello from Alertbridge","level":"success","emoji":"rocket"}'`,
    '',
    '  Read it back:',
    `    curl ${publicUrl}/api/channels/${setup.channel.slug}/alerts -H 'Authorization: Bearer ${setup.token}'`,
    '',
  ].join('\n');
}
