import type { Context } from 'hono';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from './env.js';
import { ReauthRequired } from './errors.js';

/**
 * Sensitive actions (create a token, rotate a webhook, change a role, remove a
 * member) need a sign-in within 30 minutes. Otherwise the form comes back
 * asking for the password; a correct one refreshes the session's proof.
 */
export async function requireRecentSignIn(c: Context<DashEnv>, deps: DashboardDeps, form: Record<string, string>): Promise<void> {
  const session = c.get('session');
  if (deps.sessions.isRecentlyAuthenticated(session)) return;
  const { confirm_password: password, _csrf: _ignored, ...fields } = form;
  if (password !== undefined && (await deps.passwords.verify(c.get('viewer').id, password))) {
    await deps.sessions.reauthenticated(session);
    return;
  }
  throw new ReauthRequired(fields, password !== undefined);
}

/** One audit entry for the current workspace, actor and client address. */
export async function audit(c: Context<DashEnv>, deps: DashboardDeps, action: string, target: string): Promise<void> {
  const ws = c.get('workspace');
  if (ws) await deps.audit.record(ws.id, c.get('viewer').id, action, target, c.get('clientAddress'));
}
