import { sql } from 'drizzle-orm';
import { users, workspaces } from './accounts.js';
import { bigint, boolean, text, table } from './define.js';

/**
 * Invitations to a workspace, apart from sign-in links: an invitation never signs anyone in to an
 * account that exists. The secret of its link is stored as its SHA-256 only and replaced when an
 * admin re-issues it (the old link dies). Whether an account exists for `email` is decided when
 * it is accepted. One pending invitation per workspace and address (case-insensitive).
 */
export const [invitations, pgInvitations] = table(
  'invitations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    /** Who sent (or last re-issued) it; null once that user is deleted. */
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: bigint('created_at').notNull(),
    expiresAt: bigint('expires_at').notNull(),
    /** The current link went out by e-mail (true) or was shown to the inviter (false). */
    sentByMail: boolean('sent_by_mail').notNull().default(false),
    state: text('state', { enum: ['pending', 'accepted', 'declined', 'withdrawn'] })
      .notNull()
      .default('pending'),
    /** When it was accepted, declined or withdrawn. */
    resolvedAt: bigint('resolved_at'),
  },
  (t, { index, uniqueIndex }) => [
    uniqueIndex('invitations_token_uq').on(t.tokenHash),
    uniqueIndex('invitations_pending_uq')
      .on(t.workspaceId, sql`lower(${t.email})`)
      .where(sql`state = 'pending'`),
    index('invitations_email_idx').on(sql`lower(${t.email})`),
  ],
);
