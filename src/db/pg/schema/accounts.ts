// PostgreSQL mirror of src/db/sqlite/schema/accounts.ts: same tables, columns, keys and indexes (see README,
// "Running more than one node"). Epoch-millisecond columns are bigint read as JS numbers.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, uniqueIndex } from 'drizzle-orm/pg-core';
import { text } from './types.js';

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  retentionDays: integer('retention_days'),
  retentionMaxAlerts: integer('retention_max_alerts'),
});

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    emailVerified: boolean('email_verified').notNull().default(true),
  },
  (t) => [
    uniqueIndex('users_verified_email_uq')
      .on(sql`lower(${t.email})`)
      .where(sql`${t.emailVerified}`),
    index('users_email_idx').on(sql`lower(${t.email})`),
  ],
);

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Only the SHA-256 of a token is stored; `hint` is its last four characters, for lists. */
export const apiTokens = pgTable(
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
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    readOnly: boolean('read_only').notNull().default(false),
  },
  (t) => [uniqueIndex('api_tokens_hash_uq').on(t.tokenHash), index('api_tokens_ws_idx').on(t.workspaceId)],
);
