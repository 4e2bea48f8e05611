import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { AccountRows, ChannelRecord, Role } from './account-rows.js';
import { isChannelSlug, slugify } from './channel-slug.js';
import { AppError, notFound } from './errors.js';
import { hashToken } from './tokens.js';

export { ROLES } from './account-rows.js';
export type { AccountRows, AccountUser, ChannelRecord, Role } from './account-rows.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CHANNEL_NAME_MAX = 100;

function validEmail(raw: string): string {
  const e = raw.trim();
  if (!EMAIL_RE.test(e)) throw new AppError('invalid-body', `not an e-mail address: ${raw}`);
  return e;
}

function channelName(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > CHANNEL_NAME_MAX) throw new AppError('invalid-body', `channel name must be 1 to ${CHANNEL_NAME_MAX} characters`);
  return name;
}

/** Webhook tokens carry 24 random bytes (32 URL-safe characters): the only secret a sender holds. */
function newWebhookToken(): string {
  return `whk_${randomBytes(24).toString('base64url')}`;
}

/**
 * Workspaces, users, memberships, channels and tokens: the operator-facing
 * records behind the admin CLI, the bootstrap and the dashboard's settings.
 * The rules live here; the rows behind `AccountRows` (src/db/shared/account-rows.ts).
 */
export class Accounts {
  private readonly channelListeners = new Set<() => void>();

  constructor(
    private readonly rows: AccountRows,
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

  async createWorkspace(name: string) {
    const n = name.trim();
    if (!n) throw new AppError('invalid-body', 'workspace name must not be empty');
    const row = { id: this.ids.next('ws'), name: n, createdAt: this.clock.now() };
    await this.rows.insertWorkspace(row);
    return { id: row.id, name: row.name };
  }

  /**
   * `verified`: the address is proven (the operator typed it, or the person opened a link sent there).
   * Only a verified address is unique and matches sign-in link requests and invitations.
   */
  async createUser(email: string, name?: string, opts: { verified?: boolean } = {}) {
    const e = validEmail(email);
    const emailVerified = opts.verified ?? true;
    const row = { id: this.ids.next('usr'), email: e, name: name?.trim() || e.split('@')[0]!, createdAt: this.clock.now(), emailVerified };
    // The unique index on verified lower(email) is the check: a look-up first would leave a window for a concurrent insert.
    if ((await this.rows.insertUser(row)) === 'taken') {
      throw new AppError('email-taken', `a user with e-mail ${e} already exists (${(await this.findUserByVerifiedEmail(e))?.id ?? 'just created'})`);
    }
    return { id: row.id, email: row.email, name: row.name };
  }

  /** Looks a user up by id or e-mail (the verified holder of an address first). */
  async findUser(idOrEmail: string) {
    return await this.rows.user(idOrEmail);
  }

  /**
   * The account an address proves: only a verified address matches. Every look-up that hands
   * something to "whoever owns this address" (a sign-in link, an invitation, single sign-on)
   * goes through here, so an address typed without proof reaches nobody.
   */
  async findUserByVerifiedEmail(email: string) {
    return await this.rows.userByVerifiedEmail(email.trim());
  }

  async requireUser(idOrEmail: string) {
    const u = await this.findUser(idOrEmail);
    if (!u) throw notFound(`user ${idOrEmail}`);
    return u;
  }

  async renameUser(userId: string, name: string): Promise<void> {
    await this.rows.renameUser(userId, name);
  }

  /**
   * Moves the user to `email`. Unverified (a change nobody proved): always stored, reserving nothing.
   * Verified: false when another account holds the address verified.
   */
  async changeEmail(userId: string, email: string, opts: { verified: boolean }): Promise<boolean> {
    return await this.rows.changeEmail(userId, email, opts.verified);
  }

  /** The operator's change (`user set-email`): verified, as the operator vouches for it. */
  async setVerifiedEmail(userIdOrEmail: string, email: string) {
    const user = await this.requireUser(userIdOrEmail);
    const e = validEmail(email);
    if (!(await this.rows.changeEmail(user.id, e, true))) {
      throw new AppError('email-taken', `a user with e-mail ${e} already exists (${(await this.findUserByVerifiedEmail(e))?.id ?? 'just now'})`);
    }
    return { id: user.id, email: e, emailVerified: true };
  }

  async requireWorkspace(id: string) {
    const w = await this.rows.workspace(id);
    if (!w) throw notFound(`workspace ${id}`);
    return w;
  }

  /** The user's workspaces with their role in each, oldest membership first. */
  async workspacesOf(userId: string) {
    return await this.rows.workspacesOf(userId);
  }

  /** Tokens and channel memberships only make sense for members of the workspace. */
  private async requireMembership(workspaceId: string, userId: string): Promise<void> {
    // A failed look-up (not a validation error): the CLI answers it with exit 1, like an unknown user.
    if (!(await this.rows.role(workspaceId, userId))) throw new AppError('not-found', `user ${userId} is not a member of workspace ${workspaceId}`);
  }

  async addMember(workspaceId: string, userIdOrEmail: string, role: Role = 'member') {
    await this.requireWorkspace(workspaceId);
    const user = await this.requireUser(userIdOrEmail);
    await this.rows.upsertMembership({ workspaceId, userId: user.id, role, createdAt: this.clock.now() });
    return { workspaceId, userId: user.id, role };
  }

  /** The user's tokens stay stored but fail with not_a_workspace_member from now on; private-channel memberships there go too. */
  async removeMember(workspaceId: string, userIdOrEmail: string) {
    const user = await this.requireUser(userIdOrEmail);
    if (!(await this.rows.removeMembership(workspaceId, user.id))) throw notFound(`membership of ${user.id} in ${workspaceId}`);
    return { workspaceId, userId: user.id, removed: true };
  }

  async listMembers(workspaceId: string) {
    await this.requireWorkspace(workspaceId);
    return await this.rows.members(workspaceId);
  }

  async createChannel(input: { workspaceId: string; name: string; slug?: string; icon?: string; isPrivate?: boolean }): Promise<ChannelRecord> {
    await this.requireWorkspace(input.workspaceId);
    const name = channelName(input.name);
    const slug = input.slug ?? slugify(name);
    if (!isChannelSlug(slug)) {
      throw new AppError('invalid-body', `slug must be lower-case letters, digits and dashes (got ${slug})`);
    }
    const rec: ChannelRecord = {
      id: this.ids.next('ch'),
      workspaceId: input.workspaceId,
      name,
      slug,
      icon: input.icon ?? '📢',
      isPrivate: input.isPrivate ?? false,
      webhookToken: newWebhookToken(),
    };
    // The unique (workspace, slug) index is the check: checking first and inserting after would let two
    // concurrent creations (the CLI and the server, two CLIs) both pass and one fail with a raw constraint error.
    if ((await this.rows.insertChannel({ ...rec, createdAt: this.clock.now() })) === 'taken') {
      const clash = await this.rows.channelIdBySlug(input.workspaceId, slug);
      throw new AppError('slug-taken', `slug ${slug} is already used by channel ${clash ?? 'created just now'} in workspace ${input.workspaceId}`);
    }
    return rec;
  }

  async requireChannel(idOrSlug: string, workspaceId?: string): Promise<ChannelRecord> {
    const rows = await this.rows.channelsByRef(idOrSlug, workspaceId);
    if (rows.length > 1) throw new AppError('invalid-body', `slug ${idOrSlug} exists in several workspaces: use the channel id`);
    const r = rows[0];
    if (!r) throw notFound(`channel ${idOrSlug}`);
    return r;
  }

  /**
   * A channel as a user names it: a slug is looked up in the user's own workspaces first, so `general` is
   * the user's #general even when other workspaces have one too. Whether the user may see the channel is
   * the caller's rule (visibility), not this look-up's.
   */
  async requireChannelOfUser(userId: string, idOrSlug: string): Promise<ChannelRecord> {
    const mine = await this.rows.channelIdsOfUser(userId, idOrSlug);
    if (mine.length > 1) throw new AppError('invalid-body', `slug ${idOrSlug} exists in several of the user's workspaces: use the channel id`);
    return await this.requireChannel(mine[0] ?? idOrSlug);
  }

  /** A channel of this workspace, or undefined (another workspace's channel is "not found"). */
  async channelInWorkspace(workspaceId: string, channelId: string): Promise<ChannelRecord | undefined> {
    return await this.rows.channelInWorkspace(workspaceId, channelId);
  }

  /** Every private channel of the workspace (what a group mapping may open), by name. */
  async privateChannels(workspaceId: string): Promise<ChannelRecord[]> {
    return await this.rows.privateChannels(workspaceId);
  }

  /** Channels of the workspace the user can see (the API's visibility rule), oldest first, with their alert count. */
  async visibleChannels(workspaceId: string, userId: string) {
    return await this.rows.visibleChannels(workspaceId, userId);
  }

  /** Renames a channel or changes its icon; a name is 1 to 100 characters, as at creation. */
  async updateChannel(channelId: string, change: { name?: string; icon?: string }): Promise<void> {
    await this.rows.updateChannel(channelId, { name: change.name === undefined ? undefined : channelName(change.name), icon: change.icon });
  }

  /** Whether a channel of the workspace holds this slug (to offer a free one). */
  async slugTaken(workspaceId: string, slug: string): Promise<boolean> {
    return (await this.rows.channelIdBySlug(workspaceId, slug)) !== undefined;
  }

  /**
   * Makes a channel private, keeping exactly `keep` (workspace members) as its members, or public
   * (its member list stays, unused, for a later switch back). Streams and caches re-read visibility.
   */
  async setChannelPrivacy(channelId: string, change: { isPrivate: true; keep: string[] } | { isPrivate: false }): Promise<void> {
    const ch = await this.requireChannel(channelId);
    let members: string[] | undefined;
    if (change.isPrivate) {
      const inWorkspace = new Set((await this.rows.members(ch.workspaceId)).map((m) => m.id));
      members = [...new Set(change.keep)].filter((id) => inWorkspace.has(id));
    }
    await this.rows.setChannelPrivacy(ch.id, { isPrivate: change.isPrivate, members, now: this.clock.now() });
    this.channelsChanged();
  }

  async channelMembers(channelId: string) {
    return await this.rows.channelMembers(channelId);
  }

  async addChannelMember(channelIdOrSlug: string, userIdOrEmail: string) {
    const ch = await this.requireChannel(channelIdOrSlug);
    const user = await this.requireUser(userIdOrEmail);
    // Visibility only counts channel members who are in the workspace: any other row would be dead.
    await this.requireMembership(ch.workspaceId, user.id);
    await this.rows.addChannelMember({ channelId: ch.id, userId: user.id, createdAt: this.clock.now() });
    return { channelId: ch.id, userId: user.id };
  }

  async removeChannelMember(channelIdOrSlug: string, userIdOrEmail: string) {
    const ch = await this.requireChannel(channelIdOrSlug);
    const user = await this.requireUser(userIdOrEmail);
    if (!(await this.rows.removeChannelMember(ch.id, user.id))) throw notFound(`channel membership of ${user.id} in ${ch.id}`);
    return { channelId: ch.id, userId: user.id, removed: true };
  }

  async rotateWebhook(channelIdOrSlug: string) {
    const ch = await this.requireChannel(channelIdOrSlug);
    const webhookToken = newWebhookToken();
    await this.rows.updateChannel(ch.id, { webhookToken });
    this.channelsChanged();
    return { id: ch.id, webhookToken };
  }

  /** GitHub's webhook secret for the channel's /github path; null clears it. Never returned: it is a secret. */
  async setSigningSecret(channelIdOrSlug: string, secret: string | null) {
    const ch = await this.requireChannel(channelIdOrSlug);
    await this.rows.updateChannel(ch.id, { signingSecret: secret });
    this.channelsChanged();
    return { id: ch.id, signingSecret: secret === null ? 'cleared' : 'set' };
  }

  /** Whether the channel has a signing secret (the dashboard shows "set" or "not set", never the secret). */
  async hasSigningSecret(channelIdOrSlug: string): Promise<boolean> {
    const ch = await this.requireChannel(channelIdOrSlug);
    return await this.rows.hasSigningSecret(ch.id);
  }

  /** The only moment the token exists in clear: it is returned once and only its SHA-256 is kept. */
  async createToken(workspaceId: string, userIdOrEmail: string, name?: string, opts: { readOnly?: boolean } = {}) {
    await this.requireWorkspace(workspaceId);
    const user = await this.requireUser(userIdOrEmail);
    await this.requireMembership(workspaceId, user.id);
    const token = `${this.tokenPrefix}_${randomBytes(24).toString('hex')}`;
    const row = {
      id: this.ids.next('tok'),
      workspaceId,
      userId: user.id,
      name: name?.trim() || 'API token',
      tokenHash: hashToken(token),
      hint: token.slice(-4),
      createdAt: this.clock.now(),
      readOnly: opts.readOnly === true,
    };
    await this.rows.insertToken(row);
    return { id: row.id, token, name: row.name, userId: user.id, workspaceId, readOnly: row.readOnly };
  }

  async listTokens(workspaceId: string) {
    await this.requireWorkspace(workspaceId);
    return (await this.rows.tokens(workspaceId)).map((r) => ({
      id: r.id,
      name: r.name,
      userId: r.userId,
      hint: `…${r.hint}`,
      readOnly: r.readOnly,
      createdAt: new Date(r.createdAt).toISOString(),
      lastUsedAt: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
      revokedAt: r.revokedAt ? new Date(r.revokedAt).toISOString() : null,
    }));
  }

  async revokeToken(id: string) {
    const row = await this.rows.token(id);
    if (!row) throw notFound(`token ${id}`);
    const revokedAt = row.revokedAt ?? this.clock.now();
    await this.rows.revokeToken(id, revokedAt);
    return { id, revoked: true, revokedAt: new Date(revokedAt).toISOString() };
  }
}
