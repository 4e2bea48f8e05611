import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/connection.js';
import { apiTokens, channelMembers, channels, memberships, users, workspaces } from '../db/schema/index.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { AppError, notFound } from './errors.js';
import { hashToken } from './tokens.js';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface ChannelRecord {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  icon: string;
  isPrivate: boolean;
  webhookToken: string;
}

const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'channel';
}

/**
 * Whether `err` is SQLite's unique-constraint failure on `constraint` (its wording: the indexed columns
 * "table.col, table.col", or "index 'name'" for an expression index). Read structurally, so the domain
 * does not depend on the driver's types; the cause is looked at too, in case a layer wraps the driver error.
 */
function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' && e.message.includes(constraint)) return true;
  }
  return false;
}

/** Webhook tokens carry 24 random bytes (32 URL-safe characters): the only secret a sender holds. */
function newWebhookToken(): string {
  return `whk_${randomBytes(24).toString('base64url')}`;
}

/**
 * Workspaces, users, memberships, channels and tokens: the operator-facing
 * records behind the admin CLI and the bootstrap. Not a hot path, so drizzle.
 */
export class Accounts {
  private readonly channelListeners = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly tokenPrefix: string,
  ) {}

  /**
   * Called after this process changed what a webhook token resolves to
   * (rotation, a Discord connection): caches of channels listen here. Writes by
   * other processes (the CLI) are seen through SQLite's data_version instead.
   */
  onChannelsChanged(fn: () => void): void {
    this.channelListeners.add(fn);
  }

  channelsChanged(): void {
    for (const fn of this.channelListeners) fn();
  }

  createWorkspace(name: string) {
    const n = name.trim();
    if (!n) throw new AppError('invalid-body', 'workspace name must not be empty');
    const row = { id: this.ids.next('ws'), name: n, createdAt: this.clock.now() };
    this.db.orm.insert(workspaces).values(row).run();
    return { id: row.id, name: row.name };
  }

  createUser(email: string, name?: string) {
    const e = email.trim();
    if (!EMAIL_RE.test(e)) throw new AppError('invalid-body', `not an e-mail address: ${email}`);
    const row = { id: this.ids.next('usr'), email: e, name: name?.trim() || e.split('@')[0]!, createdAt: this.clock.now() };
    // The unique index on lower(email) is the check: a look-up first would leave a window for a concurrent insert.
    try {
      this.db.orm.insert(users).values(row).run();
    } catch (err) {
      if (!isUniqueViolation(err, 'users_email_uq')) throw err;
      throw new AppError('email-taken', `a user with e-mail ${e} already exists (${this.findUser(e)?.id ?? 'just created'})`);
    }
    return { id: row.id, email: row.email, name: row.name };
  }

  /** Looks a user up by id or e-mail. */
  findUser(idOrEmail: string) {
    return this.db.sqlite
      .prepare<[string, string], { id: string; email: string; name: string }>('SELECT id, email, name FROM users WHERE id = ? OR lower(email) = lower(?)')
      .get(idOrEmail, idOrEmail);
  }

  requireUser(idOrEmail: string) {
    const u = this.findUser(idOrEmail);
    if (!u) throw notFound(`user ${idOrEmail}`);
    return u;
  }

  requireWorkspace(id: string) {
    const w = this.db.orm.select().from(workspaces).where(eq(workspaces.id, id)).get();
    if (!w) throw notFound(`workspace ${id}`);
    return { id: w.id, name: w.name };
  }

  /** Tokens and channel memberships only make sense for members of the workspace. */
  private requireMembership(workspaceId: string, userId: string): void {
    const member = this.db.orm
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
      .get();
    // A failed look-up (not a validation error): the CLI answers it with exit 1, like an unknown user.
    if (!member) throw new AppError('not-found', `user ${userId} is not a member of workspace ${workspaceId}`);
  }

  addMember(workspaceId: string, userIdOrEmail: string, role: Role = 'member') {
    this.requireWorkspace(workspaceId);
    const user = this.requireUser(userIdOrEmail);
    this.db.orm
      .insert(memberships)
      .values({ workspaceId, userId: user.id, role, createdAt: this.clock.now() })
      .onConflictDoUpdate({ target: [memberships.workspaceId, memberships.userId], set: { role } })
      .run();
    return { workspaceId, userId: user.id, role };
  }

  /** The user's tokens stay stored but fail with not_a_workspace_member from now on. */
  removeMember(workspaceId: string, userIdOrEmail: string) {
    const user = this.requireUser(userIdOrEmail);
    // One transaction: a half-done removal would let a later re-add restore private access.
    this.db.sqlite.transaction(() => {
      const res = this.db.orm
        .delete(memberships)
        .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, user.id)))
        .run();
      if (res.changes === 0) throw notFound(`membership of ${user.id} in ${workspaceId}`);
      // Explicit private-channel memberships in that workspace go too.
      this.db.sqlite
        .prepare('DELETE FROM channel_members WHERE user_id = ? AND channel_id IN (SELECT id FROM channels WHERE workspace_id = ?)')
        .run(user.id, workspaceId);
    })();
    return { workspaceId, userId: user.id, removed: true };
  }

  listMembers(workspaceId: string) {
    this.requireWorkspace(workspaceId);
    return this.db.sqlite
      .prepare<[string], { id: string; email: string; name: string; role: Role }>(
        `SELECT u.id, u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.workspace_id = ? ORDER BY m.created_at`,
      )
      .all(workspaceId);
  }

  createChannel(input: { workspaceId: string; name: string; slug?: string; icon?: string; isPrivate?: boolean }): ChannelRecord {
    this.requireWorkspace(input.workspaceId);
    const name = input.name.trim();
    if (!name || name.length > 100) throw new AppError('invalid-body', 'channel name must be 1 to 100 characters');
    const slug = input.slug ?? slugify(name);
    if (!SLUG_RE.test(slug)) {
      throw new AppError('invalid-body', `slug must be lower-case letters, digits and dashes (got ${slug})`);
    }
    const row = {
      id: this.ids.next('ch'),
      workspaceId: input.workspaceId,
      name,
      slug,
      icon: input.icon ?? '📢',
      isPrivate: input.isPrivate ?? false,
      webhookToken: newWebhookToken(),
      createdAt: this.clock.now(),
    };
    // The unique (workspace, slug) index is the check: checking first and inserting after would let two
    // concurrent creations (the CLI and the server, two CLIs) both pass and one fail with a raw constraint error.
    try {
      this.db.orm.insert(channels).values(row).run();
    } catch (err) {
      if (!isUniqueViolation(err, 'channels.workspace_id, channels.slug')) throw err;
      const clash = this.db.orm
        .select({ id: channels.id })
        .from(channels)
        .where(and(eq(channels.workspaceId, input.workspaceId), eq(channels.slug, slug)))
        .get();
      throw new AppError('slug-taken', `slug ${slug} is already used by channel ${clash?.id ?? 'created just now'} in workspace ${input.workspaceId}`);
    }
    const { createdAt: _createdAt, ...rec } = row;
    return rec;
  }

  requireChannel(idOrSlug: string, workspaceId?: string): ChannelRecord {
    const rows = this.db.sqlite
      .prepare<[string, string, string | null, string | null], Omit<ChannelRecord, 'isPrivate'> & { isPrivate: number }>(
        `SELECT id, workspace_id AS workspaceId, name, slug, icon, is_private AS isPrivate, webhook_token AS webhookToken
         FROM channels WHERE id = ? OR (slug = ? AND (? IS NULL OR workspace_id = ?))`,
      )
      .all(idOrSlug, idOrSlug, workspaceId ?? null, workspaceId ?? null);
    if (rows.length > 1) throw new AppError('invalid-body', `slug ${idOrSlug} exists in several workspaces: use the channel id`);
    const r = rows[0];
    if (!r) throw notFound(`channel ${idOrSlug}`);
    return { ...r, isPrivate: Boolean(r.isPrivate) };
  }

  /**
   * A channel as a user names it: a slug is looked up in the user's own workspaces first, so `general` is
   * the user's #general even when other workspaces have one too. Whether the user may see the channel is
   * the caller's rule (visibility), not this look-up's.
   */
  requireChannelOfUser(userId: string, idOrSlug: string): ChannelRecord {
    const mine = this.db.sqlite
      .prepare<[string, string, string], string>(
        `SELECT c.id FROM channels c JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = ?
         WHERE c.id = ? OR c.slug = ?`,
      )
      .pluck()
      .all(userId, idOrSlug, idOrSlug);
    if (mine.length > 1) throw new AppError('invalid-body', `slug ${idOrSlug} exists in several of the user's workspaces: use the channel id`);
    return this.requireChannel(mine[0] ?? idOrSlug);
  }

  addChannelMember(channelIdOrSlug: string, userIdOrEmail: string) {
    const ch = this.requireChannel(channelIdOrSlug);
    const user = this.requireUser(userIdOrEmail);
    // Visibility only counts channel members who are in the workspace: any other row would be dead.
    this.requireMembership(ch.workspaceId, user.id);
    this.db.orm
      .insert(channelMembers)
      .values({ channelId: ch.id, userId: user.id, createdAt: this.clock.now() })
      .onConflictDoNothing()
      .run();
    return { channelId: ch.id, userId: user.id };
  }

  removeChannelMember(channelIdOrSlug: string, userIdOrEmail: string) {
    const ch = this.requireChannel(channelIdOrSlug);
    const user = this.requireUser(userIdOrEmail);
    const res = this.db.orm
      .delete(channelMembers)
      .where(and(eq(channelMembers.channelId, ch.id), eq(channelMembers.userId, user.id)))
      .run();
    if (res.changes === 0) throw notFound(`channel membership of ${user.id} in ${ch.id}`);
    return { channelId: ch.id, userId: user.id, removed: true };
  }

  rotateWebhook(channelIdOrSlug: string) {
    const ch = this.requireChannel(channelIdOrSlug);
    const webhookToken = newWebhookToken();
    this.db.orm.update(channels).set({ webhookToken }).where(eq(channels.id, ch.id)).run();
    this.channelsChanged();
    return { id: ch.id, webhookToken };
  }

  /** GitHub's webhook secret for the channel's /github path; null clears it. Never returned: it is a secret. */
  setSigningSecret(channelIdOrSlug: string, secret: string | null) {
    const ch = this.requireChannel(channelIdOrSlug);
    this.db.orm.update(channels).set({ signingSecret: secret }).where(eq(channels.id, ch.id)).run();
    this.channelsChanged();
    return { id: ch.id, signingSecret: secret === null ? 'cleared' : 'set' };
  }

  /** The only moment the token exists in clear: it is returned once and only its SHA-256 is kept. */
  createToken(workspaceId: string, userIdOrEmail: string, name?: string) {
    this.requireWorkspace(workspaceId);
    const user = this.requireUser(userIdOrEmail);
    this.requireMembership(workspaceId, user.id);
    const token = `${this.tokenPrefix}_${randomBytes(24).toString('hex')}`;
    const row = {
      id: this.ids.next('tok'),
      workspaceId,
      userId: user.id,
      name: name?.trim() || 'API token',
      tokenHash: hashToken(token),
      hint: token.slice(-4),
      createdAt: this.clock.now(),
    };
    this.db.orm.insert(apiTokens).values(row).run();
    return { id: row.id, token, name: row.name, userId: user.id, workspaceId };
  }

  listTokens(workspaceId: string) {
    this.requireWorkspace(workspaceId);
    const rows = this.db.orm.select().from(apiTokens).where(eq(apiTokens.workspaceId, workspaceId)).all();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      userId: r.userId,
      hint: `…${r.hint}`,
      createdAt: new Date(r.createdAt).toISOString(),
      lastUsedAt: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
      revokedAt: r.revokedAt ? new Date(r.revokedAt).toISOString() : null,
    }));
  }

  revokeToken(id: string) {
    const row = this.db.orm.select().from(apiTokens).where(eq(apiTokens.id, id)).get();
    if (!row) throw notFound(`token ${id}`);
    const revokedAt = row.revokedAt ?? this.clock.now();
    this.db.orm.update(apiTokens).set({ revokedAt }).where(eq(apiTokens.id, id)).run();
    return { id, revoked: true, revokedAt: new Date(revokedAt).toISOString() };
  }
}
