// PostgreSQL mirror of src/db/sqlite/schema/channels.ts.
import { bigint, boolean, index, integer, pgTable, primaryKey, uniqueIndex } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users, workspaces } from './accounts.js';

export const channels = pgTable(
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
    signingSecret: text('signing_secret'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    retentionDays: integer('retention_days'),
    retentionMaxAlerts: integer('retention_max_alerts'),
  },
  (t) => [
    uniqueIndex('channels_ws_slug_uq').on(t.workspaceId, t.slug),
    uniqueIndex('channels_webhook_token_uq').on(t.webhookToken),
  ],
);

export const channelMembers = pgTable(
  'channel_members',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.userId] }), index('channel_members_user_idx').on(t.userId)],
);

export const discordLinks = pgTable(
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
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('discord_links_discord_channel_uq').on(t.discordChannelId)],
);
