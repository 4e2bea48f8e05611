import { createHash } from 'node:crypto';
import type { DiscordBody } from './discord.js';

/** Discord's epoch (2015-01-01T00:00:00Z): snowflakes count milliseconds from it. */
const DISCORD_EPOCH = 1_420_070_400_000n;

/**
 * A numeric snowflake string for `key` at `timeMs`: the time in the top 42
 * bits, as in Discord's, and 22 bits from a hash of the key below it, so the
 * same alert always gets the same id and ids sort by time like Discord's.
 */
export function snowflake(key: string, timeMs: number): string {
  const ms = BigInt(Math.max(0, Math.floor(timeMs))) - DISCORD_EPOCH;
  const low = BigInt(createHash('sha256').update(key).digest().readUInt32BE(0) & 0x3fffff);
  return ((ms > 0n ? ms : 0n) << 22n | low).toString();
}

/** Discord's timestamp form: ISO 8601 with microseconds and an explicit +00:00 offset. */
export const discordTimestamp = (timeMs: number) => new Date(timeMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

export interface StoredAttachment {
  /** Our media id, used as the key of the attachment's snowflake. */
  id: string;
  filename: string;
  size: number;
  url: string;
  contentType: string;
}

export interface DiscordMessageInput {
  alertId: string;
  /** The alert's creation time in ms. */
  createdAt: number;
  /** Our channel id: Discord's `channel_id` is derived from it. */
  channelId: string;
  /** The channel's webhook identity (its id, not its token): the author and `webhook_id`. */
  webhookKey: string;
  /** The author name Discord would show: the body's `username`, else the channel's name. */
  username: string;
  avatarUrl?: string;
  body: DiscordBody;
  attachments: readonly StoredAttachment[];
}

/**
 * The message object Discord answers to `POST /webhooks/{id}/{token}?wait=true`
 * (Discord's Message resource as documented for webhook messages), so client
 * libraries that parse the answer keep working. Mentions are never resolved:
 * Alertbridge has no users to mention, so the arrays are empty.
 */
export function discordMessage(input: DiscordMessageInput) {
  const webhookId = snowflake(`webhook:${input.webhookKey}`, input.createdAt);
  const content = input.body.content ?? '';
  return {
    id: snowflake(input.alertId, input.createdAt),
    type: 0,
    content,
    channel_id: snowflake(`channel:${input.channelId}`, input.createdAt),
    author: {
      id: webhookId,
      username: input.username,
      avatar: null,
      discriminator: '0000',
      public_flags: 0,
      flags: 0,
      bot: true,
      global_name: null,
    },
    attachments: input.attachments.map((a) => ({
      id: snowflake(`attachment:${a.id}`, input.createdAt),
      filename: a.filename,
      size: a.size,
      url: a.url,
      proxy_url: a.url,
      content_type: a.contentType,
    })),
    embeds: input.body.embeds.map((e) => ({
      type: 'rich',
      ...(e.title !== undefined ? { title: e.title } : {}),
      ...(e.description !== undefined ? { description: e.description } : {}),
      ...(e.url !== undefined ? { url: e.url } : {}),
      ...(typeof e.color === 'number' ? { color: e.color } : {}),
      ...(e.fields.length > 0 ? { fields: e.fields.map((f) => ({ name: f.name ?? '', value: f.value ?? '', inline: f.inline ?? false })) } : {}),
      ...(e.author ? { author: { name: e.author.name ?? '', ...(e.author.url ? { url: e.author.url } : {}), ...(e.author.icon_url ? { icon_url: e.author.icon_url } : {}) } } : {}),
      ...(e.footer ? { footer: { text: e.footer.text ?? '', ...(e.footer.icon_url ? { icon_url: e.footer.icon_url } : {}) } } : {}),
      ...(e.image?.url ? { image: { url: e.image.url } } : {}),
      ...(e.thumbnail?.url ? { thumbnail: { url: e.thumbnail.url } } : {}),
    })),
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: /@(?:everyone|here)\b/.test(content),
    tts: false,
    timestamp: discordTimestamp(input.createdAt),
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: webhookId,
  };
}
export type DiscordMessage = ReturnType<typeof discordMessage>;
