import type { Command } from '../command.js';
import { AuditLog } from '../../domain/auth/audit.js';
import { SignInLinks } from '../../domain/auth/sign-in-links.js';
import { signInUrl } from '../../dashboard/sign-in-link.js';

/** Dashboard access for operators without mail, and the audit trail. */
export const dashboardCommands: Command[] = [
  {
    name: 'login-link',
    usage: '--email E',
    summary: 'print a one-time dashboard sign-in link (valid 15 minutes)',
    run: (s, f) => {
      const user = s.accounts.requireUser(f.require('email'));
      const { secret, expiresAt } = new SignInLinks(s.db.sqlite, s.clock).issue(user.id);
      return { url: signInUrl(s.config.publicUrl, secret), expiresAt: new Date(expiresAt).toISOString() };
    },
  },
  {
    name: 'audit',
    usage: '--workspace W [--limit N]',
    summary: "print a workspace's audit log (newest first)",
    run: (s, f) => {
      const ws = s.accounts.requireWorkspace(f.require('workspace'));
      const limit = Math.min(Math.max(Number(f.get('limit') ?? 200) || 200, 1), 10_000);
      return { workspaceId: ws.id, entries: new AuditLog(s.db.sqlite, s.clock).list(ws.id, limit) };
    },
  },
];
