/** The test-facing data types of the fake Discord: options, recorded traffic, the state model and message inputs. */
import type { AttachmentPayload, ChannelPayload, MemberPayload, RolePayload, UserPayload } from './payloads.js';

export interface FakeDiscordOptions {
  /** Bot token accepted on REST (`Authorization: Bot <token>`) and in IDENTIFY/RESUME. */
  token?: string;
  /** HELLO heartbeat_interval in ms (default 41250, Discord's value). */
  heartbeatInterval?: number;
  /** The bot user (id, username) of READY and GET /users/@me. */
  bot?: { id?: string; username?: string; global_name?: string | null };
  /** Privileged intents "enabled in the developer portal" (default: all enabled). */
  privilegedIntents?: Partial<PrivilegedIntentSettings>;
  /** Fixed start time for the controllable clock (default: follow Date.now()). */
  now?: number;
}

export interface PrivilegedIntentSettings {
  guildMembers: boolean;
  presences: boolean;
  messageContent: boolean;
}

export interface RecordedRequest {
  method: string;
  /** Path below /api/v10, e.g. `/channels/123/messages`. */
  path: string;
  query: Record<string, string>;
  status: number;
  body?: unknown;
}

export interface InjectedFailure {
  method?: string;
  /** Exact path below /api/v10 or a RegExp tested against it. */
  path: string | RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface FakeGuild {
  id: string;
  name: string;
  owner_id: string;
  roles: RolePayload[];
  members: Map<string, MemberPayload & { user: UserPayload }>;
  channelIds: string[];
  /** Threads of the guild's channels (active and archived), in creation order. */
  threadIds: string[];
}

export interface FakeChannel {
  payload: ChannelPayload;
  /** Threads only: who joined (user ids) and whether it is private. */
  thread?: { members: Set<string>; private: boolean };
  /** Message history, oldest first. */
  messages: MessagePayload[];
}

export interface MessagePayload {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: UserPayload;
  member?: MemberPayload;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: boolean;
  mention_everyone: boolean;
  mentions: Array<UserPayload & { member?: MemberPayload }>;
  mention_roles: string[];
  attachments: AttachmentPayload[];
  embeds: unknown[];
  components: unknown[];
  reactions?: ReactionPayload[];
  pinned: boolean;
  type: number;
  flags: number;
  webhook_id?: string;
  message_reference?: { type: number; message_id: string; channel_id: string; guild_id?: string };
  referenced_message?: MessagePayload | null;
  nonce?: string;
}

/** A message's reaction summary (Discord's Reaction object). */
export interface ReactionPayload {
  count: number;
  count_details: { burst: number; normal: number };
  me: boolean;
  me_burst: boolean;
  burst_colors: string[];
  emoji: EmojiPayload;
}

/** A unicode emoji has `id: null` and the character as `name`; a custom one its snowflake and name. */
export interface EmojiPayload {
  id: string | null;
  name: string;
  animated?: boolean;
}

export interface AttachmentInit {
  filename: string;
  /** Bytes served on the fake CDN (size and URL are derived). */
  data?: Uint8Array | string;
  contentType?: string;
  /** Use an explicit URL instead of registering bytes. */
  url?: string;
  size?: number;
  width?: number;
  height?: number;
  description?: string;
}

export interface SendMessageInit {
  channelId: string;
  /** Message id (a forum post's starter message has the thread's id); default a fresh snowflake. */
  id?: string;
  /** Author user id (must be a known user unless `webhook` is given). */
  authorId?: string;
  content?: string;
  attachments?: AttachmentInit[];
  embeds?: unknown[];
  /** Id of a message in the same channel: makes a reply (type 19). */
  replyTo?: string;
  /** Whether the replied-to author is pinged (added to mentions), default true like Discord's client. */
  replyPing?: boolean;
  webhook?: { id: string; name: string; avatar?: string | null };
  tts?: boolean;
  /** Store in history but do not dispatch MESSAGE_CREATE (default true = dispatch). */
  dispatch?: boolean;
}
