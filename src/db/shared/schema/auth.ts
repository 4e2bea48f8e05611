import { users, workspaces } from './accounts.js';
import { autoId, bigint, boolean, text, table } from './define.js';

/**
 * Dashboard sessions. The cookie holds 32 random bytes; only their SHA-256 is
 * stored, so a copy of the database cannot be replayed as a cookie.
 * `expires_at` is the absolute limit; `last_seen_at` drives the idle limit;
 * `authenticated_at` is when the user last proved who they are (password or
 * link), for the 30-minute re-authentication rule on sensitive actions.
 */
export const [sessions, pgSessions] = table(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The workspace the user is looking at; null until chosen (or after they left it). */
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    createdAt: bigint('created_at').notNull(),
    lastSeenAt: bigint('last_seen_at').notNull(),
    authenticatedAt: bigint('authenticated_at').notNull(),
    expiresAt: bigint('expires_at').notNull(),
    clientAddress: text('client_address'),
    userAgent: text('user_agent'),
  },
  (t, { index }) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * One-time sign-in links: the SHA-256 of the secret, single use (`used_at`),
 * 15 minutes. With `new_email` the link also confirms an e-mail change: it was
 * sent to that address, so using it proves the user reads that mailbox.
 */
export const [signInLinks, pgSignInLinks] = table(
  'sign_in_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at').notNull(),
    expiresAt: bigint('expires_at').notNull(),
    usedAt: bigint('used_at'),
    newEmail: text('new_email'),
    /** An invitation: the first page after sign-in welcomes the person and asks for their name. */
    invite: boolean('invite').notNull().default(false),
  },
  (t, { index }) => [index('sign_in_links_user_idx').on(t.userId)],
);

/** scrypt password hashes in a self-describing string (parameters travel with the hash). */
export const [userPasswords, pgUserPasswords] = table('user_passwords', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  hash: text('hash').notNull(),
  updatedAt: bigint('updated_at').notNull(),
});

/** Who did what, when and from where: management actions of the dashboard. */
export const [auditLog, pgAuditLog] = table(
  'audit_log',
  {
    id: autoId('id'),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    actorUserId: text('actor_user_id'),
    action: text('action').notNull(),
    target: text('target'),
    clientAddress: text('client_address'),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index }) => [index('audit_log_ws_idx').on(t.workspaceId, t.id)],
);

/**
 * Server-side keys generated on first use and kept in the database, so every
 * process on the same data (CLI, a second node) signs alike. Today: the key
 * of signed one-click unsubscribe links.
 */
export const [appSecrets, pgAppSecrets] = table('app_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: bigint('created_at').notNull(),
});

/**
 * One-time results carried across a Post/Redirect/Get (src/domain/auth/flashes.ts): sealed with a key
 * derived from the session's cookie secret, which the database never holds; read once, five minutes.
 */
export const [flashes, pgFlashes] = table('flashes', {
  id: text('id').primaryKey(),
  sessionHash: text('session_hash')
    .notNull()
    .references(() => sessions.idHash, { onDelete: 'cascade' }),
  sealed: text('sealed').notNull(),
  expiresAt: bigint('expires_at').notNull(),
});
