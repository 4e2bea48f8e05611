/**
 * Builders for realistic Discord API v10 payloads, as the real gateway and REST API send them.
 * Everything here is plain JSON data (snake_case), ready to be sent over the wire.
 */

/** Discord epoch (2015-01-01T00:00:00.000Z) in ms. */
export const DISCORD_EPOCH = 1420070400000;

/** Build a snowflake: ((ms - DISCORD_EPOCH) << 22) | increment (worker/process bits left at 0). */
export function snowflakeAt(ms: number, increment = 0): string {
  return ((BigInt(Math.floor(ms) - DISCORD_EPOCH) << 22n) | BigInt(increment & 0xfff)).toString();
}

/** Creation time (ms) encoded in a snowflake. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}

/** Compare two snowflakes numerically (strings of different length compare wrongly as text). */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Monotonic snowflake generator driven by a clock function (ms). */
export class SnowflakeGenerator {
  private lastMs = -1;
  private increment = 0;
  private last = -1n;

  constructor(private readonly clock: () => number = Date.now) {}

  next(): string {
    const ms = Math.floor(this.clock());
    if (ms === this.lastMs) this.increment += 1;
    else {
      this.lastMs = ms;
      this.increment = 0;
    }
    let id = (BigInt(ms - DISCORD_EPOCH) << 22n) | BigInt(this.increment & 0xfff);
    // Never go backwards (clock set back, or more than 4096 ids in one ms).
    if (id <= this.last) id = this.last + 1n;
    this.last = id;
    return id.toString();
  }
}

/** Permission bits (subset) as bigint, matching discord.js PermissionFlagsBits. */
export const Permission = {
  CreateInstantInvite: 1n << 0n,
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  ChangeNickname: 1n << 26n,
  ManageRoles: 1n << 28n,
  ManageWebhooks: 1n << 29n,
} as const;

/** A typical @everyone permission set: view, send, read history, react, embed, attach. */
export const DEFAULT_EVERYONE_PERMISSIONS = (
  Permission.CreateInstantInvite |
  Permission.AddReactions |
  Permission.ViewChannel |
  Permission.SendMessages |
  Permission.EmbedLinks |
  Permission.AttachFiles |
  Permission.ReadMessageHistory |
  Permission.UseExternalEmojis |
  Permission.ChangeNickname
).toString();

export interface UserPayload {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot?: boolean;
  system?: boolean;
  public_flags: number;
  flags?: number;
  banner?: string | null;
  accent_color?: number | null;
}

export interface UserInit {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
  avatar?: string | null;
  discriminator?: string;
}

export function buildUser(init: UserInit): UserPayload {
  const user: UserPayload = {
    id: init.id,
    username: init.username,
    discriminator: init.discriminator ?? '0',
    global_name: init.global_name === undefined ? (init.bot ? null : init.username) : init.global_name,
    avatar: init.avatar ?? null,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
  };
  if (init.bot) user.bot = true;
  return user;
}

export interface RolePayload {
  id: string;
  name: string;
  color: number;
  colors: { primary_color: number; secondary_color: number | null; tertiary_color: number | null };
  hoist: boolean;
  icon: string | null;
  unicode_emoji: string | null;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
  flags: number;
  tags?: Record<string, unknown>;
}

export interface RoleInit {
  id: string;
  name: string;
  color?: number;
  position?: number;
  /** Permission bitfield (bigint or decimal string). */
  permissions?: bigint | string;
  hoist?: boolean;
  mentionable?: boolean;
  managed?: boolean;
}

export function buildRole(init: RoleInit): RolePayload {
  const color = init.color ?? 0;
  return {
    id: init.id,
    name: init.name,
    color,
    colors: { primary_color: color, secondary_color: null, tertiary_color: null },
    hoist: init.hoist ?? false,
    icon: null,
    unicode_emoji: null,
    position: init.position ?? 1,
    permissions: (init.permissions ?? 0n).toString(),
    managed: init.managed ?? false,
    mentionable: init.mentionable ?? false,
    flags: 0,
  };
}

/** The @everyone role: its id is the guild id and its position 0. */
export function buildEveryoneRole(guildId: string, permissions: bigint | string = DEFAULT_EVERYONE_PERMISSIONS): RolePayload {
  return buildRole({ id: guildId, name: '@everyone', position: 0, permissions });
}

export interface MemberPayload {
  user?: UserPayload;
  nick: string | null;
  avatar: string | null;
  banner: string | null;
  roles: string[];
  joined_at: string;
  premium_since: string | null;
  deaf: boolean;
  mute: boolean;
  flags: number;
  pending: boolean;
  communication_disabled_until: string | null;
}

export interface MemberInit {
  user: UserPayload;
  nick?: string | null;
  roles?: string[];
  joined_at?: string | Date;
}

export function buildMember(init: MemberInit): MemberPayload & { user: UserPayload } {
  const joined = init.joined_at ?? new Date(snowflakeTime(init.user.id));
  return {
    user: init.user,
    nick: init.nick ?? null,
    avatar: null,
    banner: null,
    roles: [...(init.roles ?? [])],
    joined_at: typeof joined === 'string' ? joined : joined.toISOString(),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

/** A member object as embedded in MESSAGE_CREATE (no `user`; the author is beside it). */
export function memberWithoutUser(member: MemberPayload): MemberPayload {
  const { user: _user, ...rest } = member;
  return rest;
}

export const ChannelType = {
  GuildText: 0, DM: 1, GuildVoice: 2, GuildCategory: 4, GuildAnnouncement: 5,
  AnnouncementThread: 10, PublicThread: 11, PrivateThread: 12, GuildForum: 15, GuildMedia: 16,
} as const;

/** A forum or media channel's tag (`available_tags`); posts name tags by id in `applied_tags`. */
export interface ForumTagPayload {
  id: string;
  name: string;
  moderated: boolean;
  emoji_id: string | null;
  emoji_name: string | null;
}

export interface ChannelPayload {
  id: string;
  type: number;
  guild_id?: string;
  name: string;
  position: number;
  permission_overwrites: Array<{ id: string; type: 0 | 1; allow: string; deny: string }>;
  topic: string | null;
  nsfw: boolean;
  last_message_id: string | null;
  rate_limit_per_user: number;
  parent_id: string | null;
  flags: number;
  /** Threads (types 10-12): the creator, counters and `thread_metadata`. */
  owner_id?: string;
  message_count?: number;
  member_count?: number;
  total_message_sent?: number;
  thread_metadata?: { archived: boolean; auto_archive_duration: number; archive_timestamp: string; locked: boolean; invitable?: boolean; create_timestamp?: string };
  /** Forum and media channels (15, 16): their tags; posts: the ids of the tags applied. */
  available_tags?: ForumTagPayload[];
  applied_tags?: string[];
}

export interface ChannelInit {
  id: string;
  guild_id: string;
  name: string;
  type?: number;
  position?: number;
  topic?: string | null;
  nsfw?: boolean;
  parent_id?: string | null;
  permission_overwrites?: ChannelPayload['permission_overwrites'];
}

export function buildTextChannel(init: ChannelInit): ChannelPayload {
  return {
    id: init.id,
    type: init.type ?? ChannelType.GuildText,
    guild_id: init.guild_id,
    name: init.name,
    position: init.position ?? 0,
    permission_overwrites: init.permission_overwrites ?? [],
    topic: init.topic ?? null,
    nsfw: init.nsfw ?? false,
    last_message_id: null,
    rate_limit_per_user: 0,
    parent_id: init.parent_id ?? null,
    flags: 0,
  };
}

export interface GuildInit {
  id: string;
  name: string;
  owner_id: string;
  roles?: RolePayload[];
  icon?: string | null;
  description?: string | null;
}

/** The guild object as REST `GET /guilds/:id` returns it (no members/channels). */
export function buildGuild(init: GuildInit): Record<string, unknown> {
  return {
    id: init.id,
    name: init.name,
    icon: init.icon ?? null,
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: init.description ?? null,
    owner_id: init.owner_id,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 0,
    default_message_notifications: 1,
    explicit_content_filter: 0,
    roles: init.roles ?? [buildEveryoneRole(init.id)],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    max_members: 500000,
    max_presences: null,
    max_video_channel_users: 25,
    vanity_url_code: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    nsfw: false,
    nsfw_level: 0,
  };
}

export interface GuildCreateInit extends GuildInit {
  members: MemberPayload[];
  channels: ChannelPayload[];
  /** Active threads the bot can see (Discord sends them with guild_id). */
  threads?: ChannelPayload[];
  joined_at?: string;
}

/** The GUILD_CREATE dispatch payload: the guild plus members, channels and the gateway-only fields. */
export function buildGuildCreate(init: GuildCreateInit): Record<string, unknown> {
  return {
    ...buildGuild(init),
    joined_at: init.joined_at ?? new Date(snowflakeTime(init.id)).toISOString(),
    large: false,
    unavailable: false,
    member_count: init.members.length,
    voice_states: [],
    members: init.members,
    // Guild channels carry no guild_id inside GUILD_CREATE.
    channels: init.channels.map(({ guild_id: _g, ...c }) => c),
    threads: init.threads ?? [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    application_command_counts: {},
    embedded_activities: [],
    lazy: true,
  };
}

export interface AttachmentPayload {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  width?: number | null;
  height?: number | null;
  description?: string;
  flags?: number;
}

/** Gateway intent bits (subset), as in discord.js GatewayIntentBits. */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildPresences: 1 << 8,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
} as const;

export const PRIVILEGED_INTENTS = Intent.GuildMembers | Intent.GuildPresences | Intent.MessageContent;
