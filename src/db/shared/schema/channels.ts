import { users, workspaces } from './accounts.js';
import { bigint, boolean, integer, text, table } from './define.js';

export const [channels, pgChannels] = table(
  'channels',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    icon: text('icon').notNull(),
    isPrivate: boolean('is_private').notNull().default(false),
    webhookToken: text('webhook_token').notNull(),
    /** GitHub's webhook secret: when set, /github deliveries must carry a valid X-Hub-Signature-256. */
    signingSecret: text('signing_secret'),
    createdAt: bigint('created_at').notNull(),
    // Retention (src/domain/retention.ts): NULL inherits the workspace's value, 0 means
    // "no limit here" even when the workspace sets one, N > 0 is the limit.
    retentionDays: integer('retention_days'),
    retentionMaxAlerts: integer('retention_max_alerts'),
  },
  (t, { uniqueIndex }) => [
    uniqueIndex('channels_ws_slug_uq').on(t.workspaceId, t.slug),
    uniqueIndex('channels_webhook_token_uq').on(t.webhookToken),
  ],
);

export const [channelMembers, pgChannelMembers] = table(
  'channel_members',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.channelId, t.userId] }), index('channel_members_user_idx').on(t.userId)],
);

/**
 * A channel bound to a Discord text channel (one Discord channel feeds one
 * channel). `synced_until` is the Discord message id up to which the channel's
 * history is known to be complete: backfill resumes from it, never from the
 * newest stored message (live messages may already have arrived past a gap).
 */
export const [discordLinks, pgDiscordLinks] = table(
  'discord_links',
  {
    channelId: text('channel_id')
      .primaryKey()
      .references(() => channels.id, { onDelete: 'cascade' }),
    discordChannelId: text('discord_channel_id').notNull(),
    guildId: text('guild_id'),
    guildName: text('guild_name'),
    discordChannelName: text('discord_channel_name'),
    syncedUntil: text('synced_until'),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { uniqueIndex }) => [uniqueIndex('discord_links_discord_channel_uq').on(t.discordChannelId)],
);

/**
 * A Discord thread (or forum post) seen under a connected channel: its current name, the post's
 * tag names and whether it is archived. Messages point at it by `alerts.thread_id`; the threads
 * endpoint lists these rows with counts from the messages (docs/discord.md).
 */
export const [chatThreads, pgChatThreads] = table(
  'chat_threads',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    threadId: text('thread_id').notNull(),
    name: text('name').notNull(),
    tagsJson: text('tags_json').notNull().default('[]'),
    archived: boolean('archived').notNull().default(false),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.channelId, t.threadId] })],
);
