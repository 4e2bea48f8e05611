// PostgreSQL mirror of src/db/sqlite/schema/auth.ts.
import { bigint, boolean, index, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users, workspaces } from './accounts.js';

export const sessions = pgTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
    authenticatedAt: bigint('authenticated_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    clientAddress: text('client_address'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const signInLinks = pgTable(
  'sign_in_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    usedAt: bigint('used_at', { mode: 'number' }),
    newEmail: text('new_email'),
    invite: boolean('invite').notNull().default(false),
  },
  (t) => [index('sign_in_links_user_idx').on(t.userId)],
);

export const userPasswords = pgTable('user_passwords', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  hash: text('hash').notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

/** `id` is an identity column (SQLite: AUTOINCREMENT); "by default" so that an import keeps the ids. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    actorUserId: text('actor_user_id'),
    action: text('action').notNull(),
    target: text('target'),
    clientAddress: text('client_address'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('audit_log_ws_idx').on(t.workspaceId, t.id)],
);

export const appSecrets = pgTable('app_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

export const flashes = pgTable('flashes', {
  id: text('id').primaryKey(),
  sessionHash: text('session_hash')
    .notNull()
    .references(() => sessions.idHash, { onDelete: 'cascade' }),
  sealed: text('sealed').notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
});
