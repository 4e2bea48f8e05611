/**
 * What the account use cases (src/domain/accounts.ts) need from storage:
 * workspaces, users, memberships, channels, channel members and API tokens.
 * Implemented once for both engines by src/db/shared/account-rows.ts. No rule lives here: a
 * method stores or reads rows, and reports a unique-key clash as a value
 * (`'taken'`) so the domain decides what it means without knowing the driver.
 */

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

export interface UserRecord {
  id: string;
  email: string;
  name: string;
}

/** A user with whether their address is proven (src/db/shared/schema/accounts.ts, `email_verified`). */
export interface AccountUser extends UserRecord {
  emailVerified: boolean;
}

export interface TokenRecord {
  id: string;
  workspaceId: string;
  userId: string;
  name: string;
  hint: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** Reads and read state only (src/domain/tokens.ts, requireWriter). */
  readOnly: boolean;
  revokedAt: number | null;
}

export interface AccountRows {
  insertWorkspace(row: { id: string; name: string; createdAt: number }): Promise<void>;
  workspace(id: string): Promise<{ id: string; name: string } | undefined>;
  /** The user's workspaces with their role, oldest membership first. */
  workspacesOf(userId: string): Promise<{ id: string; name: string; role: Role }[]>;

  /** `'taken'` when the address is verified and another user has it verified (case-insensitive); unverified addresses never clash. */
  insertUser(row: UserRecord & { createdAt: number; emailVerified: boolean }): Promise<'ok' | 'taken'>;
  /** By id, or by e-mail case-insensitively (its verified holder first, else the oldest unverified one). */
  user(idOrEmail: string): Promise<AccountUser | undefined>;
  /** The user whose verified address this is (case-insensitive); unverified holders never match. */
  userByVerifiedEmail(email: string): Promise<AccountUser | undefined>;
  renameUser(userId: string, name: string): Promise<void>;
  /** Sets the address, verified or not. False when it is to be verified and another user has it verified (or no such user). */
  changeEmail(userId: string, email: string, verified: boolean): Promise<boolean>;

  role(workspaceId: string, userId: string): Promise<Role | undefined>;
  upsertMembership(row: { workspaceId: string; userId: string; role: Role; createdAt: number }): Promise<void>;
  /** Drops the membership and the user's private-channel memberships in that workspace, in one transaction; false when there was none. */
  removeMembership(workspaceId: string, userId: string): Promise<boolean>;
  /** Members with their role, oldest membership first. */
  members(workspaceId: string): Promise<(UserRecord & { role: Role })[]>;

  /** `'taken'` when the workspace already has a channel with this slug. */
  insertChannel(row: ChannelRecord & { createdAt: number }): Promise<'ok' | 'taken'>;
  /** The channel id holding `slug` in the workspace. */
  channelIdBySlug(workspaceId: string, slug: string): Promise<string | undefined>;
  /** Channels whose id is `ref`, or whose slug is `ref` (in `workspaceId` when given). */
  channelsByRef(ref: string, workspaceId?: string): Promise<ChannelRecord[]>;
  /** Ids of channels whose id or slug is `ref`, in the workspaces the user belongs to. */
  channelIdsOfUser(userId: string, ref: string): Promise<string[]>;
  channelInWorkspace(workspaceId: string, channelId: string): Promise<ChannelRecord | undefined>;
  /** Every private channel of the workspace, whoever can see it, by name. */
  privateChannels(workspaceId: string): Promise<ChannelRecord[]>;
  /** The workspace's channels the user can see (public, or private with the user as member), oldest first, with their alert count. */
  visibleChannels(workspaceId: string, userId: string): Promise<(ChannelRecord & { alertCount: number })[]>;
  /** Whether the channel has a GitHub signing secret (the secret itself is never read back here). */
  hasSigningSecret(channelId: string): Promise<boolean>;
  updateChannel(channelId: string, change: { name?: string; icon?: string; webhookToken?: string; signingSecret?: string | null }): Promise<void>;

  /** Public or private; with `members`, the channel's member list becomes exactly those users, in the same transaction. */
  setChannelPrivacy(channelId: string, change: { isPrivate: boolean; members?: string[]; now: number }): Promise<void>;
  addChannelMember(row: { channelId: string; userId: string; createdAt: number }): Promise<void>;
  /** False when the user was not a member. */
  removeChannelMember(channelId: string, userId: string): Promise<boolean>;
  channelMembers(channelId: string): Promise<UserRecord[]>;

  insertToken(row: Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> & { tokenHash: string }): Promise<void>;
  tokens(workspaceId: string): Promise<TokenRecord[]>;
  token(id: string): Promise<TokenRecord | undefined>;
  revokeToken(id: string, revokedAt: number): Promise<void>;
}

/**
 * The first start's set-up as one unit: when the installation has no workspace yet, `body` runs
 * with account rows bound to the unit and everything it writes commits together; otherwise it does
 * not run (null). Two processes or nodes starting together on an empty database set it up once.
 */
export interface FirstStartUnit {
  ifEmpty<T>(body: (rows: AccountRows) => Promise<T>): Promise<T | null>;
}
