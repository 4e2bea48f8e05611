import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
  // The retention default of channels without their own value (NULL: no limit); see src/domain/retention.ts.
  retentionDays: integer('retention_days'),
  retentionMaxAlerts: integer('retention_max_alerts'),
});

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    createdAt: integer('created_at').notNull(),
    /**
     * Proven (a confirmation link, the operator, or stored before addresses were verified: the
     * default fills existing rows). Only verified addresses are unique and only they match a
     * sign-in link request or an invitation: an unverified address reserves nothing.
     */
    emailVerified: integer('email_verified', { mode: 'boolean' }).notNull().default(true),
  },
  (t) => [
    uniqueIndex('users_verified_email_uq')
      .on(sql`lower(${t.email})`)
      .where(sql`${t.emailVerified} = 1`),
    index('users_email_idx').on(sql`lower(${t.email})`),
  ],
);

export const memberships = sqliteTable(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Only the SHA-256 of a token is stored; `hint` is its last four characters, for lists. */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    hint: text('hint').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    /** A read-only token reads (and marks read) but may not change an alert's status or delete one. */
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [uniqueIndex('api_tokens_hash_uq').on(t.tokenHash), index('api_tokens_ws_idx').on(t.workspaceId)],
);
