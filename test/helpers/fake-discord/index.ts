/**
 * A fake Discord (REST + gateway + CDN) on 127.0.0.1 that the real discord.js client logs into.
 *
 *   const fake = new FakeDiscord();
 *   await fake.start();
 *   const { guild, channel, alice } = fake.seedGuild();
 *   const client = new Client({ intents, partials, rest: { api: fake.apiUrl, globalRequestsPerSecond: 10_000 } });
 *   await client.login(fake.token);
 *   fake.sendMessage({ channelId: channel.id, authorId: alice.id, content: 'hi' });
 *   ...
 *   await client.destroy();
 *   await fake.stop();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import {
  buildEveryoneRole,
  buildGuild,
  buildGuildCreate,
  buildMember,
  buildRole,
  buildTextChannel,
  buildUser,
  compareSnowflakes,
  Intent,
  memberWithoutUser,
  SnowflakeGenerator,
  snowflakeTime,
  type AttachmentPayload,
  type ChannelPayload,
  type MemberPayload,
  type RoleInit,
  type RolePayload,
  type UserPayload,
} from './payloads.js';

export * from './payloads.js';

const API_PREFIX = '/api/v10';

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
}

export interface FakeChannel {
  payload: ChannelPayload;
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
  reactions?: unknown[];
  pinned: boolean;
  type: number;
  flags: number;
  webhook_id?: string;
  message_reference?: { type: number; message_id: string; channel_id: string; guild_id?: string };
  referenced_message?: MessagePayload | null;
  nonce?: string;
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

interface Session {
  id: string;
  intents: number;
  seq: number;
  conn: Conn | null;
}

interface Conn {
  ws: WebSocket;
  url: string;
  session: Session | null;
}

type Waiter = { target: number; resolve: () => void };

function errorBody(status: number, code: number, message: string) {
  return { status, body: { message, code } };
}

const MENTION_USER = /<@!?(\d{17,20})>/g;
const MENTION_ROLE = /<@&(\d{17,20})>/g;

export class FakeDiscord {
  readonly token: string;
  readonly heartbeatInterval: number;
  privilegedIntents: PrivilegedIntentSettings;
  /** Every REST request, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Every CDN request path, in order. */
  readonly cdnRequests: string[] = [];
  /** Every gateway payload received from clients ({op, d}), in order. */
  readonly received: Array<{ op: number; d: unknown }> = [];
  /** Gateway connection URLs (path + query), in order. */
  readonly connectionUrls: string[] = [];
  readonly users = new Map<string, UserPayload>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly botUser: UserPayload;

  identifyCount = 0;
  resumeCount = 0;
  heartbeatCount = 0;

  private clockMs: number | null;
  private readonly ids: SnowflakeGenerator;
  private readonly sessions = new Map<string, Session>();
  private readonly conns = new Set<Conn>();
  private readonly cdnFiles = new Map<string, { bytes: Buffer; contentType: string }>();
  private readonly failures: Array<InjectedFailure & { remaining: number }> = [];
  private identifyWaiters: Waiter[] = [];
  private resumeWaiters: Waiter[] = [];
  private http: Server | null = null;
  private cdn: Server | null = null;
  private wss: WebSocketServer | null = null;
  private port = 0;
  private cdnPort = 0;

  constructor(options: FakeDiscordOptions = {}) {
    this.token = options.token ?? 'fake-bot-token.NzAx.secret';
    this.heartbeatInterval = options.heartbeatInterval ?? 41_250;
    this.privilegedIntents = { guildMembers: true, presences: true, messageContent: true, ...options.privilegedIntents };
    this.clockMs = options.now ?? null;
    this.ids = new SnowflakeGenerator(() => this.now());
    this.botUser = buildUser({
      id: options.bot?.id ?? this.nextId(),
      username: options.bot?.username ?? 'alertbridge',
      global_name: options.bot?.global_name ?? null,
      bot: true,
    });
    this.users.set(this.botUser.id, this.botUser);
  }

  // ---------------------------------------------------------------- clock & ids

  /** Current time of the controllable clock (ms). */
  now(): number {
    return this.clockMs ?? Date.now();
  }

  /** Freeze the clock at `ms` (snowflakes and timestamps follow it). */
  setTime(ms: number): void {
    this.clockMs = ms;
  }

  /** Move the clock forward (freezing it at the current time first if it was following Date.now()). */
  advanceTime(ms: number): void {
    this.clockMs = this.now() + ms;
  }

  /** A fresh snowflake at the clock's time. */
  nextId(): string {
    return this.ids.next();
  }

  // ---------------------------------------------------------------- lifecycle

  get apiUrl(): string {
    this.assertStarted();
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    this.assertStarted();
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  get cdnBase(): string {
    this.assertStarted();
    return `http://127.0.0.1:${this.cdnPort}`;
  }

  async start(): Promise<void> {
    if (this.http) throw new Error('FakeDiscord already started');
    this.http = createServer((req, res) => this.handleRest(req, res));
    this.wss = new WebSocketServer({ server: this.http, path: '/gateway' });
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req));
    this.cdn = createServer((req, res) => this.handleCdn(req, res));
    this.port = await listen(this.http);
    this.cdnPort = await listen(this.cdn);
  }

  async stop(): Promise<void> {
    for (const conn of this.conns) conn.ws.terminate();
    this.conns.clear();
    this.wss?.close();
    await Promise.all([this.http, this.cdn].map((s) => (s ? closeServer(s) : undefined)));
    this.http = this.cdn = null;
    this.wss = null;
  }

  private assertStarted(): void {
    if (!this.http) throw new Error('FakeDiscord not started: await fake.start() first');
  }

  // ---------------------------------------------------------------- state model

  addUser(init: { id?: string; username: string; global_name?: string | null; bot?: boolean; avatar?: string | null }): UserPayload {
    const user = buildUser({ ...init, id: init.id ?? this.nextId() });
    this.users.set(user.id, user);
    return user;
  }

  /** Add a guild (with @everyone and the bot as a member). Dispatches GUILD_CREATE to live sessions. */
  addGuild(init: { id?: string; name: string; ownerId: string; everyonePermissions?: bigint | string }): FakeGuild {
    const id = init.id ?? this.nextId();
    if (!this.users.has(init.ownerId)) throw new Error(`addGuild: unknown owner ${init.ownerId}`);
    const guild: FakeGuild = {
      id,
      name: init.name,
      owner_id: init.ownerId,
      roles: [buildEveryoneRole(id, init.everyonePermissions)],
      members: new Map(),
      channelIds: [],
    };
    this.guilds.set(id, guild);
    this.putMember(guild, this.botUser.id, {});
    if (init.ownerId !== this.botUser.id) this.putMember(guild, init.ownerId, {});
    this.dispatch('GUILD_CREATE', (s) => this.guildCreatePayload(guild, s), Intent.Guilds);
    return guild;
  }

  addRole(guildId: string, init: Omit<RoleInit, 'id'> & { id?: string }): RolePayload {
    const guild = this.guild(guildId);
    const role = buildRole({ position: guild.roles.length, ...init, id: init.id ?? this.nextId() });
    guild.roles.push(role);
    this.dispatch('GUILD_ROLE_CREATE', { guild_id: guildId, role }, Intent.Guilds);
    return role;
  }

  addMember(guildId: string, userId: string, init: { nick?: string | null; roles?: string[] } = {}): MemberPayload & { user: UserPayload } {
    const guild = this.guild(guildId);
    const member = this.putMember(guild, userId, init);
    this.dispatch('GUILD_MEMBER_ADD', { ...member, guild_id: guildId }, Intent.GuildMembers);
    return member;
  }

  addTextChannel(guildId: string, init: { id?: string; name: string; topic?: string | null; position?: number }): ChannelPayload {
    const guild = this.guild(guildId);
    const channel = buildTextChannel({
      id: init.id ?? this.nextId(),
      guild_id: guildId,
      name: init.name,
      topic: init.topic ?? null,
      position: init.position ?? guild.channelIds.length,
    });
    guild.channelIds.push(channel.id);
    this.channels.set(channel.id, { payload: channel, messages: [] });
    this.dispatch('CHANNEL_CREATE', channel, Intent.Guilds);
    return channel;
  }

  /**
   * A ready-made guild: owner `owner`, members `alice` (role `oncall`, nick "Alice A.") and `bob`,
   * text channels `#alerts` and `#general`.
   */
  seedGuild(name = 'Ops') {
    const owner = this.addUser({ username: 'owner', global_name: 'The Owner' });
    const alice = this.addUser({ username: 'alice', global_name: 'Alice' });
    const bob = this.addUser({ username: 'bob', global_name: null });
    const guild = this.addGuild({ name, ownerId: owner.id });
    const oncall = this.addRole(guild.id, { name: 'oncall', color: 0xe74c3c, mentionable: true });
    this.addMember(guild.id, alice.id, { nick: 'Alice A.', roles: [oncall.id] });
    this.addMember(guild.id, bob.id);
    const channel = this.addTextChannel(guild.id, { name: 'alerts', topic: 'Alerts go here' });
    const general = this.addTextChannel(guild.id, { name: 'general' });
    return { guild, owner, alice, bob, oncall, channel, general };
  }

  /** Message history of a channel, oldest first. */
  history(channelId: string): MessagePayload[] {
    return this.channel(channelId).messages;
  }

  getMessage(channelId: string, messageId: string): MessagePayload | undefined {
    return this.channel(channelId).messages.find((m) => m.id === messageId);
  }

  private putMember(guild: FakeGuild, userId: string, init: { nick?: string | null; roles?: string[] }) {
    const user = this.users.get(userId);
    if (!user) throw new Error(`unknown user ${userId}`);
    for (const r of init.roles ?? []) {
      if (!guild.roles.some((x) => x.id === r)) throw new Error(`unknown role ${r} in guild ${guild.id}`);
    }
    const member = buildMember({ user, nick: init.nick, roles: init.roles, joined_at: new Date(this.now()) });
    guild.members.set(userId, member);
    return member;
  }

  private guild(id: string): FakeGuild {
    const g = this.guilds.get(id);
    if (!g) throw new Error(`unknown guild ${id}`);
    return g;
  }

  private channel(id: string): FakeChannel {
    const c = this.channels.get(id);
    if (!c) throw new Error(`unknown channel ${id}`);
    return c;
  }

  private guildCreatePayload(guild: FakeGuild, session?: Session): Record<string, unknown> {
    const members = [...guild.members.values()];
    const withMembers = session && !(session.intents & Intent.GuildMembers) ? members.filter((m) => m.user.id === this.botUser.id) : members;
    return buildGuildCreate({
      id: guild.id,
      name: guild.name,
      owner_id: guild.owner_id,
      roles: guild.roles,
      members: withMembers,
      channels: guild.channelIds.map((id) => this.channel(id).payload),
    });
  }

  // ---------------------------------------------------------------- CDN

  /** Serve `bytes` at `path` on the CDN server; returns the absolute URL. */
  addCdnFile(path: string, bytes: Uint8Array | string, contentType = 'application/octet-stream'): string {
    const p = path.startsWith('/') ? path : `/${path}`;
    this.cdnFiles.set(p, { bytes: Buffer.from(bytes), contentType });
    return `${this.cdnBase}${p}`;
  }

  private handleCdn(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.cdnRequests.push(path);
    const file = this.cdnFiles.get(path);
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
    res.end(req.method === 'HEAD' ? undefined : file.bytes);
  }

  // ---------------------------------------------------------------- messages (test-driving API)

  /** Store a message in history and (unless `dispatch: false`) dispatch MESSAGE_CREATE. */
  sendMessage(init: SendMessageInit): MessagePayload {
    const channel = this.channel(init.channelId);
    const guildId = channel.payload.guild_id;
    const guild = guildId ? this.guild(guildId) : undefined;
    const id = this.nextId();
    const timestamp = new Date(snowflakeTime(id)).toISOString();

    let author: UserPayload;
    let member: MemberPayload | undefined;
    if (init.webhook) {
      author = {
        id: init.webhook.id,
        username: init.webhook.name,
        discriminator: '0000',
        global_name: null,
        avatar: init.webhook.avatar ?? null,
        bot: true,
        public_flags: 0,
        flags: 0,
      };
    } else {
      if (!init.authorId) throw new Error('sendMessage: authorId or webhook required');
      const user = this.users.get(init.authorId);
      if (!user) throw new Error(`sendMessage: unknown user ${init.authorId}`);
      author = user;
      const m = guild?.members.get(user.id);
      if (m) member = memberWithoutUser(m);
    }

    const attachments: AttachmentPayload[] = (init.attachments ?? []).map((a) => {
      const attId = this.nextId();
      let url = a.url;
      let size = a.size ?? 0;
      if (a.data !== undefined) {
        const bytes = Buffer.from(a.data);
        size = bytes.length;
        url = this.addCdnFile(`/attachments/${channel.payload.id}/${attId}/${encodeURIComponent(a.filename)}`, bytes, a.contentType ?? 'application/octet-stream');
      }
      if (!url) throw new Error('attachment needs data or url');
      const att: AttachmentPayload = { id: attId, filename: a.filename, size, url, proxy_url: url };
      if (a.contentType) att.content_type = a.contentType;
      if (a.width !== undefined) att.width = a.width;
      if (a.height !== undefined) att.height = a.height;
      if (a.description !== undefined) att.description = a.description;
      return att;
    });

    const message: MessagePayload = {
      id,
      channel_id: channel.payload.id,
      author,
      content: init.content ?? '',
      timestamp,
      edited_timestamp: null,
      tts: init.tts ?? false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments,
      embeds: init.embeds ?? [],
      components: [],
      pinned: false,
      type: 0,
      flags: 0,
    };
    if (guildId) message.guild_id = guildId;
    if (member) message.member = member;
    if (init.webhook) message.webhook_id = init.webhook.id;

    let replyAuthor: UserPayload | undefined;
    if (init.replyTo) {
      const ref = channel.messages.find((m) => m.id === init.replyTo) ?? null;
      message.type = 19;
      message.message_reference = { type: 0, message_id: init.replyTo, channel_id: channel.payload.id, ...(guildId ? { guild_id: guildId } : {}) };
      message.referenced_message = ref ? stripReference(ref) : null;
      if (ref && init.replyPing !== false && !ref.webhook_id) replyAuthor = ref.author;
    }
    this.fillMentions(message, guild, replyAuthor);

    channel.messages.push(message);
    channel.payload.last_message_id = id;
    if (init.dispatch !== false) this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  /** Store a message in history without dispatching it (what a bot misses while disconnected). */
  postWhileDisconnected(init: Omit<SendMessageInit, 'dispatch'>): MessagePayload {
    return this.sendMessage({ ...init, dispatch: false });
  }

  /** Edit a stored message and dispatch MESSAGE_UPDATE (the full message, like Discord). */
  editMessage(channelId: string, messageId: string, content: string, opts: { dispatch?: boolean } = {}): MessagePayload {
    const channel = this.channel(channelId);
    const message = channel.messages.find((m) => m.id === messageId);
    if (!message) throw new Error(`editMessage: unknown message ${messageId}`);
    message.content = content;
    message.edited_timestamp = new Date(this.now()).toISOString();
    const guild = message.guild_id ? this.guild(message.guild_id) : undefined;
    const replyAuthor = message.type === 19 && message.referenced_message ? message.mentions.find((u) => u.id === message.referenced_message?.author.id) : undefined;
    this.fillMentions(message, guild, replyAuthor);
    if (opts.dispatch !== false) this.dispatchMessage('MESSAGE_UPDATE', message);
    return message;
  }

  /** Remove a message from history (if stored) and dispatch MESSAGE_DELETE. */
  deleteMessage(channelId: string, messageId: string, opts: { dispatch?: boolean } = {}): void {
    const channel = this.channel(channelId);
    channel.messages = channel.messages.filter((m) => m.id !== messageId);
    const d: Record<string, unknown> = { id: messageId, channel_id: channelId };
    if (channel.payload.guild_id) d.guild_id = channel.payload.guild_id;
    if (opts.dispatch !== false) this.dispatch('MESSAGE_DELETE', d, this.messageIntent(channel));
  }

  /** Remove messages from history and dispatch MESSAGE_DELETE_BULK. */
  bulkDelete(channelId: string, ids: string[], opts: { dispatch?: boolean } = {}): void {
    const channel = this.channel(channelId);
    const set = new Set(ids);
    channel.messages = channel.messages.filter((m) => !set.has(m.id));
    const d: Record<string, unknown> = { ids: [...ids], channel_id: channelId };
    if (channel.payload.guild_id) d.guild_id = channel.payload.guild_id;
    if (opts.dispatch !== false) this.dispatch('MESSAGE_DELETE_BULK', d, this.messageIntent(channel));
  }

  private fillMentions(message: MessagePayload, guild: FakeGuild | undefined, replyAuthor?: UserPayload): void {
    const content = message.content;
    const mentioned = new Map<string, UserPayload & { member?: MemberPayload }>();
    const addUser = (user: UserPayload) => {
      const m = guild?.members.get(user.id);
      mentioned.set(user.id, m ? { ...user, member: memberWithoutUser(m) } : { ...user });
    };
    if (replyAuthor) addUser(replyAuthor);
    for (const match of content.matchAll(MENTION_USER)) {
      const user = this.users.get(match[1]!);
      if (user) addUser(user);
    }
    const roles = new Set<string>();
    for (const match of content.matchAll(MENTION_ROLE)) {
      if (guild?.roles.some((r) => r.id === match[1] && r.id !== guild.id)) roles.add(match[1]!);
    }
    message.mentions = [...mentioned.values()];
    message.mention_roles = [...roles];
    message.mention_everyone = /@(everyone|here)\b/.test(content);
  }

  private messageIntent(channel: FakeChannel): number {
    return channel.payload.guild_id ? Intent.GuildMessages : Intent.DirectMessages;
  }

  private dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: MessagePayload): void {
    const channel = this.channel(message.channel_id);
    this.dispatch(t, (s) => this.visibleMessage(message, (s?.intents ?? 0) & Intent.MessageContent ? true : false), this.messageIntent(channel));
  }

  /**
   * Discord empties content/embeds/attachments/components for apps without the message content
   * intent, except for DMs, the bot's own messages and messages that mention the bot.
   */
  private visibleMessage(message: MessagePayload, hasContentIntent: boolean): MessagePayload {
    const copy = structuredClone(message);
    if (hasContentIntent) return copy;
    const exempt = !message.guild_id || message.author.id === this.botUser.id || message.mentions.some((u) => u.id === this.botUser.id);
    if (!exempt) {
      copy.content = '';
      copy.embeds = [];
      copy.attachments = [];
      copy.components = [];
    }
    if (copy.referenced_message) copy.referenced_message = this.visibleMessage(copy.referenced_message, false);
    return copy;
  }

  // ---------------------------------------------------------------- REST

  /** Make the next matching REST request(s) fail, e.g. `{ path: /\/messages$/, status: 429, headers: {'retry-after': '0.05'} }`. */
  injectFailure(failure: InjectedFailure): void {
    this.failures.push({ ...failure, remaining: failure.times ?? 1 });
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** REST requests whose path matches (exact string or RegExp), optionally by method. */
  requestsTo(path: string | RegExp, method = 'GET'): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  private async handleRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const fullPath = url.pathname;
    const path = fullPath.startsWith(API_PREFIX) ? fullPath.slice(API_PREFIX.length) || '/' : fullPath;
    const query = Object.fromEntries(url.searchParams.entries());
    const raw = await readBody(req);
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
    }
    const record: RecordedRequest = { method, path, query, status: 0 };
    if (body !== undefined) record.body = body;
    this.requests.push(record);

    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      if (payload === undefined || status === 204) {
        // No content-type on an empty body: undici would JSON.parse('') and crash the client.
        res.writeHead(status, headers).end();
      } else {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
      }
    };

    if (!fullPath.startsWith(`${API_PREFIX}/`)) return send(404, { message: '404: Not Found', code: 0 });
    if (req.headers.authorization !== `Bot ${this.token}`) return send(401, { message: '401: Unauthorized', code: 0 });

    const failure = this.failures.find(
      (f) => f.remaining > 0 && (!f.method || f.method === method) && (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
    );
    if (failure) {
      failure.remaining -= 1;
      const fallback = failure.status === 429 ? { message: 'You are being rate limited.', retry_after: 0.05, global: false } : { message: 'Injected failure', code: 0 };
      return send(failure.status, failure.body ?? fallback, failure.headers);
    }

    let result: { status: number; body?: unknown };
    try {
      result = this.route(method, path, query, body);
    } catch (error) {
      result = { status: 500, body: { message: `FakeDiscord: ${(error as Error).message}`, code: 0 } };
    }
    send(result.status, result.body);
  }

  private route(method: string, path: string, query: Record<string, string>, body: unknown): { status: number; body?: unknown } {
    const seg = path.split('/').filter(Boolean);
    const ok = (b: unknown) => ({ status: 200, body: b });
    const canSeeContent = this.privilegedIntents.messageContent;

    if (method === 'GET' && path === '/gateway/bot') {
      return ok({
        url: this.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000 - this.identifyCount, reset_after: 86_400_000, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/gateway') return ok({ url: this.gatewayUrl });
    if (method === 'GET' && path === '/users/@me') return ok(this.botUser);

    if (seg[0] === 'users' && seg.length === 2 && method === 'GET') {
      const user = this.users.get(seg[1]!);
      return user ? ok(user) : errorBody(404, 10013, 'Unknown User');
    }

    if (seg[0] === 'channels' && seg[1]) {
      const channel = this.channels.get(seg[1]);
      if (!channel) return errorBody(404, 10003, 'Unknown Channel');
      if (seg.length === 2 && method === 'GET') return ok(channel.payload);
      if (seg[2] === 'messages' && seg.length === 3 && method === 'GET') {
        const page = this.pageMessages(channel, query);
        if ('error' in page) return page.error;
        return ok(page.messages.map((m) => this.visibleMessage(m, canSeeContent)));
      }
      if (seg[2] === 'messages' && seg.length === 3 && method === 'POST') {
        const b = (body ?? {}) as { content?: string; message_reference?: { message_id?: string } };
        const message = this.sendMessage({
          channelId: channel.payload.id,
          authorId: this.botUser.id,
          content: b.content ?? '',
          replyTo: b.message_reference?.message_id,
        });
        return ok(message);
      }
      if (seg[2] === 'messages' && seg.length === 4 && method === 'GET') {
        const message = channel.messages.find((m) => m.id === seg[3]);
        return message ? ok(this.visibleMessage(message, canSeeContent)) : errorBody(404, 10008, 'Unknown Message');
      }
      return errorBody(404, 0, '404: Not Found');
    }

    if (seg[0] === 'guilds' && seg[1] && method === 'GET') {
      const guild = this.guilds.get(seg[1]);
      if (!guild) return errorBody(404, 10004, 'Unknown Guild');
      if (seg.length === 2) {
        const g = buildGuild({ id: guild.id, name: guild.name, owner_id: guild.owner_id, roles: guild.roles });
        if (query.with_counts === 'true') {
          g.approximate_member_count = guild.members.size;
          g.approximate_presence_count = 0;
        }
        return ok(g);
      }
      if (seg[2] === 'channels' && seg.length === 3) return ok(guild.channelIds.map((id) => this.channel(id).payload));
      if (seg[2] === 'roles' && seg.length === 3) return ok(guild.roles);
      if (seg[2] === 'members' && seg.length === 4) {
        const member = guild.members.get(seg[3]!);
        return member ? ok(member) : errorBody(404, 10007, 'Unknown Member');
      }
      if (seg[2] === 'members' && seg.length === 3) {
        if (!this.privilegedIntents.guildMembers) return errorBody(403, 50001, 'Missing Access');
        const limit = query.limit === undefined ? 1 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return invalidForm('limit', 'int value should be between 1 and 1000');
        const after = query.after ?? '0';
        const members = [...guild.members.values()]
          .filter((m) => compareSnowflakes(m.user.id, after) > 0)
          .sort((a, b) => compareSnowflakes(a.user.id, b.user.id))
          .slice(0, limit);
        return ok(members);
      }
    }
    return errorBody(404, 0, '404: Not Found');
  }

  /** Discord's paging: newest first; `after` yields the `limit` messages right after the anchor. */
  private pageMessages(channel: FakeChannel, query: Record<string, string>): { messages: MessagePayload[] } | { error: { status: number; body: unknown } } {
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { error: invalidForm('limit', 'int value should be between 1 and 100') };
    const anchors = ['around', 'before', 'after'].filter((k) => query[k] !== undefined);
    if (anchors.length > 1) return { error: invalidForm(anchors[1]!, 'only one of around, before, after') };
    for (const k of anchors) {
      if (!/^\d{1,20}$/.test(query[k]!)) return { error: invalidForm(k, 'Value "' + query[k] + '" is not snowflake.') };
    }
    const asc = channel.messages; // oldest first (ids are increasing)
    let picked: MessagePayload[];
    if (query.after !== undefined) {
      picked = asc.filter((m) => compareSnowflakes(m.id, query.after!) > 0).slice(0, limit);
    } else if (query.before !== undefined) {
      const older = asc.filter((m) => compareSnowflakes(m.id, query.before!) < 0);
      picked = older.slice(Math.max(0, older.length - limit));
    } else if (query.around !== undefined) {
      const around = query.around;
      const idx = asc.findIndex((m) => compareSnowflakes(m.id, around) >= 0);
      const center = idx === -1 ? asc.length : idx;
      const start = Math.max(0, center - Math.floor(limit / 2));
      picked = asc.slice(start, start + limit);
    } else {
      picked = asc.slice(Math.max(0, asc.length - limit));
    }
    return { messages: [...picked].reverse() };
  }

  // ---------------------------------------------------------------- gateway

  /** Gateway connections that are identified or resumed and open. */
  get sessionCount(): number {
    let n = 0;
    for (const c of this.conns) if (c.session && c.ws.readyState === WebSocket.OPEN) n += 1;
    return n;
  }

  /** Resolves once `identifyCount >= total` (default: the next IDENTIFY after this call). */
  waitForIdentify(total = this.identifyCount + 1, timeoutMs = 5_000): Promise<void> {
    return this.waitCount('identify', total, timeoutMs);
  }

  /** Resolves once `resumeCount >= total` (default: the next RESUME after this call); RESUMED is sent by then. */
  waitForResume(total = this.resumeCount + 1, timeoutMs = 5_000): Promise<void> {
    return this.waitCount('resume', total, timeoutMs);
  }

  /** Terminate every gateway socket (no close frame): clients resume ~0.5 s later. Returns how many. */
  dropConnections(): number {
    const n = this.conns.size;
    for (const conn of this.conns) conn.ws.terminate();
    return n;
  }

  /** Close every gateway socket with a close code (e.g. 4000 → resume, 4004 → fatal). */
  closeConnections(code: number, reason = ''): void {
    for (const conn of this.conns) conn.ws.close(code, reason);
  }

  /** Send a raw dispatch to every live session (for events the fake has no helper for). */
  dispatchRaw(t: string, d: object): void {
    this.dispatch(t, d);
  }

  private waitCount(kind: 'identify' | 'resume', total: number, timeoutMs: number): Promise<void> {
    const current = kind === 'identify' ? this.identifyCount : this.resumeCount;
    if (current >= total) return Promise.resolve();
    const list = kind === 'identify' ? this.identifyWaiters : this.resumeWaiters;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        reject(new Error(`FakeDiscord: timed out after ${timeoutMs} ms waiting for ${kind} #${total}`));
      }, timeoutMs);
      const waiter: Waiter = {
        target: total,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      list.push(waiter);
    });
  }

  private notify(kind: 'identify' | 'resume'): void {
    const count = kind === 'identify' ? this.identifyCount : this.resumeCount;
    const list = kind === 'identify' ? this.identifyWaiters : this.resumeWaiters;
    const due = list.filter((w) => w.target <= count);
    if (kind === 'identify') this.identifyWaiters = list.filter((w) => w.target > count);
    else this.resumeWaiters = list.filter((w) => w.target > count);
    for (const w of due) w.resolve();
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const conn: Conn = { ws, url: req.url ?? '', session: null };
    this.conns.add(conn);
    this.connectionUrls.push(conn.url);
    ws.on('close', () => {
      this.conns.delete(conn);
      if (conn.session?.conn === conn) conn.session.conn = null;
    });
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(4002, 'Decode error');
      let payload: { op: number; d: any };
      try {
        payload = JSON.parse(data.toString());
      } catch {
        return ws.close(4002, 'Decode error');
      }
      this.received.push({ op: payload.op, d: payload.d });
      this.onPayload(conn, payload);
    });
    this.sendRaw(conn, { op: 10, d: { heartbeat_interval: this.heartbeatInterval, _trace: ['fake-discord'] } });
  }

  private onPayload(conn: Conn, { op, d }: { op: number; d: any }): void {
    switch (op) {
      case 1: // heartbeat
        this.heartbeatCount += 1;
        this.sendRaw(conn, { op: 11 });
        return;
      case 2:
        return this.onIdentify(conn, d);
      case 6:
        return this.onResume(conn, d);
      case 8:
        return this.onRequestMembers(conn, d);
      case 3: // presence update
      case 4: // voice state update
        return;
      default:
        conn.ws.close(4001, 'Unknown opcode');
    }
  }

  private onIdentify(conn: Conn, d: { token?: string; intents?: number; shard?: [number, number] }): void {
    if (conn.session) return conn.ws.close(4005, 'Already authenticated');
    if (d.token !== this.token) return conn.ws.close(4004, 'Authentication failed');
    const intents = Number(d.intents ?? 0);
    if (!Number.isInteger(intents) || intents < 0 || intents >= 1 << 26) return conn.ws.close(4013, 'Invalid intent(s)');
    const disallowed =
      (intents & Intent.GuildMembers && !this.privilegedIntents.guildMembers) ||
      (intents & Intent.GuildPresences && !this.privilegedIntents.presences) ||
      (intents & Intent.MessageContent && !this.privilegedIntents.messageContent);
    if (disallowed) return conn.ws.close(4014, 'Disallowed intent(s)');

    const session: Session = { id: `fake-session-${this.nextId()}`, intents, seq: 0, conn };
    this.sessions.set(session.id, session);
    conn.session = session;
    this.identifyCount += 1;
    const guilds = [...this.guilds.values()];
    this.sendDispatch(session, 'READY', {
      v: 10,
      user: this.botUser,
      user_settings: {},
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      relationships: [],
      private_channels: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.gatewayUrl,
      shard: d.shard ?? [0, 1],
      application: { id: this.botUser.id, flags: 0 },
      _trace: ['fake-discord'],
    });
    for (const g of guilds) this.sendDispatch(session, 'GUILD_CREATE', this.guildCreatePayload(g, session));
    this.notify('identify');
  }

  private onResume(conn: Conn, d: { token?: string; session_id?: string; seq?: number }): void {
    if (d.token !== this.token) return conn.ws.close(4004, 'Authentication failed');
    const session = d.session_id ? this.sessions.get(d.session_id) : undefined;
    if (!session) {
      this.sendRaw(conn, { op: 9, d: false });
      return;
    }
    // Take the session over (the old socket, if any, is stale). Missed events are NOT replayed.
    const old = session.conn;
    if (old && old !== conn) {
      old.session = null;
      old.ws.terminate();
    }
    session.conn = conn;
    conn.session = session;
    this.resumeCount += 1;
    this.sendDispatch(session, 'RESUMED', { _trace: ['fake-discord'] });
    this.notify('resume');
  }

  private onRequestMembers(conn: Conn, d: { guild_id?: string | string[]; query?: string; limit?: number; user_ids?: string | string[]; nonce?: string }): void {
    const session = conn.session;
    if (!session) return conn.ws.close(4003, 'Not authenticated');
    const guildIds = Array.isArray(d.guild_id) ? d.guild_id : [d.guild_id ?? ''];
    for (const guildId of guildIds) {
      const guild = this.guilds.get(guildId);
      if (!guild) continue;
      let members = [...guild.members.values()];
      let notFound: string[] | undefined;
      if (d.user_ids !== undefined) {
        const ids = Array.isArray(d.user_ids) ? d.user_ids : [d.user_ids];
        members = members.filter((m) => ids.includes(m.user.id));
        notFound = ids.filter((id) => !guild.members.has(id));
      } else if (d.query) {
        const q = d.query.toLowerCase();
        members = members.filter((m) => m.user.username.toLowerCase().startsWith(q) || (m.nick ?? '').toLowerCase().startsWith(q));
      }
      if (d.limit && d.limit > 0) members = members.slice(0, d.limit);
      const chunk: Record<string, unknown> = { guild_id: guild.id, members, chunk_index: 0, chunk_count: 1 };
      if (notFound?.length) chunk.not_found = notFound;
      if (d.nonce !== undefined) chunk.nonce = d.nonce;
      this.sendDispatch(session, 'GUILD_MEMBERS_CHUNK', chunk);
    }
  }

  /** Dispatch to every session with a live socket (and the intent, if given). Events for dropped sessions are lost. */
  private dispatch(t: string, d: object | ((s: Session) => unknown), intent?: number): void {
    for (const session of this.sessions.values()) {
      if (!session.conn || session.conn.ws.readyState !== WebSocket.OPEN) continue;
      if (intent !== undefined && !(session.intents & intent)) continue;
      this.sendDispatch(session, t, typeof d === 'function' ? (d as (s: Session) => unknown)(session) : d);
    }
  }

  private sendDispatch(session: Session, t: string, d: unknown): void {
    if (!session.conn) return;
    session.seq += 1;
    this.sendRaw(session.conn, { op: 0, t, s: session.seq, d });
  }

  private sendRaw(conn: Conn, payload: unknown): void {
    // Always a text frame: discord.js treats binary frames as zlib-compressed.
    if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(JSON.stringify(payload), { binary: false });
  }
}

function stripReference(m: MessagePayload): MessagePayload {
  const { referenced_message: _r, ...rest } = structuredClone(m);
  return rest;
}

function invalidForm(field: string, message: string) {
  return {
    status: 400,
    body: { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

