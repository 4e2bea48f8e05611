// PostgreSQL mirror of src/db/sqlite/schema/invitations.ts.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import { users, workspaces } from './accounts.js';
import { text } from './types.js';

export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    sentByMail: boolean('sent_by_mail').notNull().default(false),
    state: text('state', { enum: ['pending', 'accepted', 'declined', 'withdrawn'] })
      .notNull()
      .default('pending'),
    resolvedAt: bigint('resolved_at', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('invitations_token_uq').on(t.tokenHash),
    uniqueIndex('invitations_pending_uq')
      .on(t.workspaceId, sql`lower(${t.email})`)
      .where(sql`state = 'pending'`),
    index('invitations_email_idx').on(sql`lower(${t.email})`),
  ],
);
