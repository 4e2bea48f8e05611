import { signInUrl } from '../../dashboard/sign-in-link.js';
import { SqliteAuditRows, SqliteSignInLinkRows } from '../../db/auth-rows.js';
import { AuditLog } from '../../domain/auth/audit.js';
import { SignInLinks } from '../../domain/auth/sign-in-links.js';
import { defineCommand, wholeNumberFlag, type Command } from '../command.js';

const AUDIT_LIMIT = { default: 200, max: 10_000 };

/** Dashboard access for operators without mail, and the audit trail. */
export const dashboardCommands: Command[] = [
  defineCommand({
    name: 'login-link',
    summary: 'print a one-time dashboard sign-in link (valid 15 minutes)',
    flags: { email: { type: 'string', value: 'E', required: true } },
    run: async (ctx, f) => {
      const user = await ctx.accounts().requireUser(f.email);
      const { secret, expiresAt } = await new SignInLinks(new SqliteSignInLinkRows(ctx.db().sqlite), ctx.clock).issue(user.id);
      return { url: signInUrl(ctx.config.publicUrl, secret), expiresAt: new Date(expiresAt).toISOString() };
    },
  }),
  defineCommand({
    name: 'audit',
    summary: "print a workspace's audit log (newest first)",
    flags: { workspace: { type: 'string', value: 'W', required: true }, limit: { type: 'string', value: 'N' } },
    run: async (ctx, f) => {
      const limit = f.limit === undefined ? AUDIT_LIMIT.default : wholeNumberFlag('limit', f.limit, AUDIT_LIMIT.max);
      const ws = await ctx.accounts().requireWorkspace(f.workspace);
      return { workspaceId: ws.id, entries: await new AuditLog(new SqliteAuditRows(ctx.db().sqlite), ctx.clock).list(ws.id, limit) };
    },
  }),
];
