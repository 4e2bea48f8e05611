import { signInUrl } from '../../dashboard/sign-in-link.js';
import { defineCommand, wholeNumberFlag, type Command } from '../command.js';

const AUDIT_LIMIT = { default: 200, max: 10_000 };

/** Dashboard access for operators without mail, and the audit trail. */
export const dashboardCommands: Command[] = [
  defineCommand({
    name: 'login-link',
    summary: 'print a one-time dashboard sign-in link (valid 15 minutes)',
    flags: { email: { type: 'string', value: 'E', required: true } },
    run: async (ctx, f) => {
      const user = await (await ctx.accounts()).requireUser(f.email);
      const { secret, expiresAt } = await (await ctx.signInLinks()).issue(user.id);
      return { url: signInUrl(ctx.config.publicUrl, secret), expiresAt: new Date(expiresAt).toISOString() };
    },
  }),
  defineCommand({
    name: 'audit',
    summary: "print a workspace's audit log (newest first)",
    flags: { workspace: { type: 'string', value: 'W', required: true }, limit: { type: 'string', value: 'N' } },
    run: async (ctx, f) => {
      const limit = f.limit === undefined ? AUDIT_LIMIT.default : wholeNumberFlag('limit', f.limit, AUDIT_LIMIT.max);
      const ws = await (await ctx.accounts()).requireWorkspace(f.workspace);
      return { workspaceId: ws.id, entries: await (await ctx.auditLog()).list(ws.id, limit) };
    },
  }),
];
