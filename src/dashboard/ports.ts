import type { ChannelRecord, Role } from '../domain/accounts.js';

export type { ChannelRecord, Role };

export interface UserRef {
  id: string;
  email: string;
  name: string;
}

/** A user with whether their address is proven (only a verified address matches links and invitations). */
export interface AccountRef extends UserRef {
  emailVerified: boolean;
}

export interface TokenRow {
  id: string;
  name: string;
  userId: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Reads and marks read only: no status changes or deletes. */
  readOnly: boolean;
}

export interface DiscordStatus {
  connected: boolean;
  discordChannelId?: string;
  /** Null until the bot has seen the channel. */
  guildName?: string | null;
  channelName?: string | null;
  messages: number;
}

/**
 * What the dashboard needs from the account use cases. The dashboard never
 * sees the ORM: src/dashboard/accounts-adapter.ts implements this over today's
 * Accounts class, and can be re-pointed to other use cases without touching a page.
 */
export interface DashboardAccounts {
  /** By id, or by address (its verified holder first). For password sign-in and the session's viewer. */
  findUser(idOrEmail: string): Promise<AccountRef | undefined>;
  /**
   * The account whose verified address this is. Every look-up that hands something to "whoever owns
   * this address" (sign-in links, invitations) uses this one: an unverified address matches nothing.
   */
  findUserByVerifiedEmail(email: string): Promise<AccountRef | undefined>;
  /** `verified` (default true): the address is proven; an unverified one reserves nothing. */
  createUser(email: string, name?: string, opts?: { verified?: boolean }): Promise<UserRef>;
  renameUser(userId: string, name: string): Promise<void>;
  /** Unverified: always stored. Verified: false when another account holds the address verified. */
  changeEmail(userId: string, email: string, opts: { verified: boolean }): Promise<boolean>;
  /** The workspaces a user belongs to, with their role in each, oldest membership first. */
  workspacesOf(userId: string): Promise<{ id: string; name: string; role: Role }[]>;
  listMembers(workspaceId: string): Promise<(UserRef & { role: Role })[]>;
  addMember(workspaceId: string, userIdOrEmail: string, role: Role): Promise<void>;
  removeMember(workspaceId: string, userId: string): Promise<void>;
  /** Channels of the workspace the user can see (the API's visibility rule). */
  visibleChannels(workspaceId: string, userId: string): Promise<(ChannelRecord & { alertCount: number })[]>;
  createChannel(input: { workspaceId: string; name: string; slug?: string; icon?: string; isPrivate?: boolean }): Promise<ChannelRecord>;
  /** A channel of this workspace, or undefined (another workspace's channel is "not found"). */
  channel(workspaceId: string, channelId: string): Promise<ChannelRecord | undefined>;
  updateChannel(channelId: string, change: { name?: string; icon?: string }): Promise<void>;
  deleteChannel(channelId: string): Promise<void>;
  rotateWebhook(channelId: string): Promise<{ webhookToken: string }>;
  channelMembers(channelId: string): Promise<UserRef[]>;
  /** Whether a channel of the workspace holds this slug (private ones included). */
  slugTaken(workspaceId: string, slug: string): Promise<boolean>;
  /** Private with exactly `keep` as members, or public. */
  setChannelPrivacy(channelId: string, change: { isPrivate: true; keep: string[] } | { isPrivate: false }): Promise<void>;
  addChannelMember(channelId: string, userId: string): Promise<void>;
  removeChannelMember(channelId: string, userId: string): Promise<void>;
  discordStatus(channelId: string): Promise<DiscordStatus>;
  /** GitHub's signing secret of the channel's /github path: whether one is set (never the secret itself). */
  hasSigningSecret(channelId: string): Promise<boolean>;
  /** Sets or replaces the secret; null clears it. Stored as the CLI stores it. */
  setSigningSecret(channelId: string, secret: string | null): Promise<void>;
  connectDiscord(channelId: string, discordChannelId: string): Promise<void>;
  disconnectDiscord(channelId: string): Promise<void>;
  createToken(workspaceId: string, userId: string, name: string, opts?: { readOnly?: boolean }): Promise<{ id: string; token: string }>;
  listTokens(workspaceId: string): Promise<TokenRow[]>;
  revokeToken(tokenId: string): Promise<void>;
  /** Alerts per UTC day per channel since `sinceMs`, for the usage chart. */
  alertsPerDay(workspaceId: string, sinceMs: number): Promise<{ day: string; channelId: string; count: number }[]>;
  /** Stored alerts per UTC month per channel, newest month first. */
  alertsPerMonth(workspaceId: string): Promise<{ month: string; channelId: string; count: number }[]>;
  usageByMonth(workspaceId: string): Promise<{ month: string; events: number }[]>;
}
