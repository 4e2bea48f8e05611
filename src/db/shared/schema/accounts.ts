import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, text, table } from './define.js';

export const [workspaces, pgWorkspaces] = table('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: bigint('created_at').notNull(),
  // The retention default of channels without their own value (NULL: no limit); see src/domain/retention.ts.
  retentionDays: integer('retention_days'),
  retentionMaxAlerts: integer('retention_max_alerts'),
});

export const [users, pgUsers] = table(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    createdAt: bigint('created_at').notNull(),
    /**
     * Proven (a confirmation link, the operator, or stored before addresses were verified: the
     * default fills existing rows). Only verified addresses are unique and only they match a
     * sign-in link request or an invitation: an unverified address reserves nothing.
     */
    emailVerified: boolean('email_verified').notNull().default(true),
  },
  (t, { index, uniqueIndex, isTrue }) => [
    uniqueIndex('users_verified_email_uq')
      .on(sql`lower(${t.email})`)
      .where(isTrue(t.emailVerified)),
    index('users_email_idx').on(sql`lower(${t.email})`),
  ],
);

export const [memberships, pgMemberships] = table(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Only the SHA-256 of a token is stored; `hint` is its last four characters, for lists. */
export const [apiTokens, pgApiTokens] = table(
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
    createdAt: bigint('created_at').notNull(),
    lastUsedAt: bigint('last_used_at'),
    revokedAt: bigint('revoked_at'),
    /** A read-only token reads (and marks read) but may not change an alert's status or delete one. */
    readOnly: boolean('read_only').notNull().default(false),
  },
  (t, { index, uniqueIndex }) => [uniqueIndex('api_tokens_hash_uq').on(t.tokenHash), index('api_tokens_ws_idx').on(t.workspaceId)],
);
