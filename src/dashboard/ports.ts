import type { ChannelRecord, Role } from '../domain/accounts.js';

export type { ChannelRecord, Role };

export interface UserRef {
  id: string;
  email: string;
  name: string;
}

export interface TokenRow {
  id: string;
  name: string;
  userId: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
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
  findUser(idOrEmail: string): UserRef | undefined;
  createUser(email: string, name?: string): UserRef;
  renameUser(userId: string, name: string): void;
  /** False when another user already has the address. */
  changeEmail(userId: string, email: string): boolean;
  /** The workspaces a user belongs to, with their role in each, oldest membership first. */
  workspacesOf(userId: string): { id: string; name: string; role: Role }[];
  listMembers(workspaceId: string): (UserRef & { role: Role })[];
  addMember(workspaceId: string, userIdOrEmail: string, role: Role): void;
  removeMember(workspaceId: string, userId: string): void;
  /** Channels of the workspace the user can see (the API's visibility rule). */
  visibleChannels(workspaceId: string, userId: string): (ChannelRecord & { alertCount: number })[];
  createChannel(input: { workspaceId: string; name: string; slug?: string; icon?: string; isPrivate?: boolean }): ChannelRecord;
  /** A channel of this workspace, or undefined (another workspace's channel is "not found"). */
  channel(workspaceId: string, channelId: string): ChannelRecord | undefined;
  updateChannel(channelId: string, change: { name?: string; icon?: string }): void;
  deleteChannel(channelId: string): Promise<void>;
  rotateWebhook(channelId: string): { webhookToken: string };
  channelMembers(channelId: string): UserRef[];
  addChannelMember(channelId: string, userId: string): void;
  removeChannelMember(channelId: string, userId: string): void;
  discordStatus(channelId: string): DiscordStatus;
  connectDiscord(channelId: string, discordChannelId: string): void;
  disconnectDiscord(channelId: string): void;
  createToken(workspaceId: string, userId: string, name: string): { id: string; token: string };
  listTokens(workspaceId: string): TokenRow[];
  revokeToken(tokenId: string): void;
  /** Alerts per UTC day per channel since `sinceMs`, for the usage chart. */
  alertsPerDay(workspaceId: string, sinceMs: number): Promise<{ day: string; channelId: string; count: number }[]>;
  usageByMonth(workspaceId: string): { month: string; events: number }[];
}
