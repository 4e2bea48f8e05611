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
 *
 * This class holds the state model (clock, snowflakes, users, guilds, channels, members, messages) and the whole
 * test-facing API; the wire protocols live beside it: rest.ts, gateway.ts, cdn.ts.
 */
import { createServer, type Server } from 'node:http';
import { FakeCdn } from './cdn.js';
import { FakeCommunity } from './community.js';
import { FakeGateway, guildCreateView } from './gateway.js';
import { closeServer, listen, required } from './http.js';
import { attachmentPayload, composeMessage, fillMentions, messageById, pingedReplyAuthor, visibleMessage } from './messages.js';
import {
  buildEveryoneRole,
  buildMember,
  buildRole,
  buildTextChannel,
  buildUser,
  Intent,
  SnowflakeGenerator,
  type AttachmentPayload,
  type ChannelPayload,
  type MemberPayload,
  type RoleInit,
  type RolePayload,
  type UserPayload,
} from './payloads.js';
import { FakeRest } from './rest.js';
import type {
  AttachmentInit,
  FakeChannel,
  FakeDiscordOptions,
  FakeGuild,
  InjectedFailure,
  MessagePayload,
  PrivilegedIntentSettings,
  RecordedRequest,
  SendMessageInit,
} from './types.js';

export class FakeDiscord {
  private readonly rest = new FakeRest(this);
  private readonly gateway = new FakeGateway(this);
  private readonly cdn = new FakeCdn();
  /** Threads, forum channels with tags, reactions (community.ts). */
  readonly community = new FakeCommunity(this, (t, d, intent) => this.gateway.dispatch(t, d, intent));

  readonly token: string;
  readonly heartbeatInterval: number;
  privilegedIntents: PrivilegedIntentSettings;
  /** Every REST request, in order. */
  readonly requests: RecordedRequest[] = this.rest.requests;
  /** Every CDN request path, in order. */
  readonly cdnRequests: string[] = this.cdn.requests;
  /** Every gateway payload received from clients ({op, d}), in order. */
  readonly received: Array<{ op: number; d: unknown }> = this.gateway.received;
  /** Gateway connection URLs (path + query), in order. */
  readonly connectionUrls: string[] = this.gateway.connectionUrls;
  readonly users = new Map<string, UserPayload>();
  readonly guilds = new Map<string, FakeGuild>();
  readonly channels = new Map<string, FakeChannel>();
  readonly botUser: UserPayload;

  private clockMs: number | null;
  private readonly ids: SnowflakeGenerator;
  private http: Server | null = null;
  private port = 0;

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
    return this.cdn.base;
  }

  async start(): Promise<void> {
    if (this.http) throw new Error('FakeDiscord already started');
    this.http = createServer((req, res) => this.rest.handle(req, res));
    this.gateway.attach(this.http);
    this.port = await listen(this.http);
    await this.cdn.start();
  }

  async stop(): Promise<void> {
    this.gateway.close();
    await Promise.all([this.http ? closeServer(this.http) : undefined, this.cdn.stop()]);
    this.http = null;
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
      threadIds: [],
    };
    this.guilds.set(id, guild);
    this.putMember(guild, this.botUser.id, {});
    if (init.ownerId !== this.botUser.id) this.putMember(guild, init.ownerId, {});
    this.gateway.dispatchEach('GUILD_CREATE', (intents) => guildCreateView(this, guild, intents), Intent.Guilds);
    return guild;
  }

  addRole(guildId: string, init: Omit<RoleInit, 'id'> & { id?: string }): RolePayload {
    const guild = required(this.guilds, guildId, 'guild');
    const role = buildRole({ position: guild.roles.length, ...init, id: init.id ?? this.nextId() });
    guild.roles.push(role);
    this.gateway.dispatch('GUILD_ROLE_CREATE', { guild_id: guildId, role }, Intent.Guilds);
    return role;
  }

  addMember(guildId: string, userId: string, init: { nick?: string | null; roles?: string[] } = {}): MemberPayload & { user: UserPayload } {
    const guild = required(this.guilds, guildId, 'guild');
    const member = this.putMember(guild, userId, init);
    this.gateway.dispatch('GUILD_MEMBER_ADD', { ...member, guild_id: guildId }, Intent.GuildMembers);
    return member;
  }

  addTextChannel(guildId: string, init: { id?: string; name: string; topic?: string | null; position?: number }): ChannelPayload {
    const guild = required(this.guilds, guildId, 'guild');
    const channel = buildTextChannel({
      id: init.id ?? this.nextId(),
      guild_id: guildId,
      name: init.name,
      topic: init.topic ?? null,
      position: init.position ?? guild.channelIds.length,
    });
    guild.channelIds.push(channel.id);
    this.channels.set(channel.id, { payload: channel, messages: [] });
    this.gateway.dispatch('CHANNEL_CREATE', channel, Intent.Guilds);
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
    return required(this.channels, channelId, 'channel').messages;
  }

  getMessage(channelId: string, messageId: string): MessagePayload | undefined {
    return messageById(required(this.channels, channelId, 'channel').messages, messageId);
  }

  private putMember(guild: FakeGuild, userId: string, init: { nick?: string | null; roles?: string[] }) {
    const user = required(this.users, userId, 'user');
    for (const r of init.roles ?? []) {
      if (!guild.roles.some((x) => x.id === r)) throw new Error(`unknown role ${r} in guild ${guild.id}`);
    }
    const member = buildMember({ user, nick: init.nick, roles: init.roles, joined_at: new Date(this.now()) });
    guild.members.set(userId, member);
    return member;
  }

  // ---------------------------------------------------------------- CDN

  /** Serve `bytes` at `path` on the CDN server; returns the absolute URL. */
  addCdnFile(path: string, bytes: Uint8Array | string, contentType = 'application/octet-stream'): string {
    this.assertStarted();
    return this.cdn.add(path, bytes, contentType);
  }

  // ---------------------------------------------------------------- messages (test-driving API)

  /** Store a message in history and (unless `dispatch: false`) dispatch MESSAGE_CREATE. */
  sendMessage(init: SendMessageInit): MessagePayload {
    const channel = required(this.channels, init.channelId, 'channel');
    const guild = channel.payload.guild_id ? required(this.guilds, channel.payload.guild_id, 'guild') : undefined;
    const context = { id: init.id ?? this.nextId(), channel, guild, users: this.users };
    const message = composeMessage(init, context, (a) => this.storeAttachment(channel.payload.id, a));
    channel.messages.push(message);
    channel.payload.last_message_id = message.id;
    // A thread counts its messages; the starter message of a forum post is not counted (Discord's rule).
    if (channel.thread && message.id !== channel.payload.id) channel.payload.message_count = (channel.payload.message_count ?? 0) + 1;
    if (init.dispatch !== false) this.dispatchMessage('MESSAGE_CREATE', message);
    return message;
  }

  /** Store a message in history without dispatching it (what a bot misses while disconnected). */
  postWhileDisconnected(init: Omit<SendMessageInit, 'dispatch'>): MessagePayload {
    return this.sendMessage({ ...init, dispatch: false });
  }

  /** Edit a stored message and dispatch MESSAGE_UPDATE (the full message, like Discord). */
  editMessage(channelId: string, messageId: string, content: string, opts: { dispatch?: boolean } = {}): MessagePayload {
    const channel = required(this.channels, channelId, 'channel');
    const message = messageById(channel.messages, messageId);
    if (!message) throw new Error(`editMessage: unknown message ${messageId}`);
    message.content = content;
    message.edited_timestamp = new Date(this.now()).toISOString();
    const guild = message.guild_id ? required(this.guilds, message.guild_id, 'guild') : undefined;
    fillMentions(message, guild, this.users, pingedReplyAuthor(message));
    if (opts.dispatch !== false) this.dispatchMessage('MESSAGE_UPDATE', message);
    return message;
  }

  /** Remove a message from history (if stored) and dispatch MESSAGE_DELETE. */
  deleteMessage(channelId: string, messageId: string, opts: { dispatch?: boolean } = {}): void {
    const channel = required(this.channels, channelId, 'channel');
    channel.messages = channel.messages.filter((m) => m.id !== messageId);
    const d: Record<string, unknown> = { id: messageId, channel_id: channelId };
    if (channel.payload.guild_id) d.guild_id = channel.payload.guild_id;
    if (opts.dispatch !== false) this.gateway.dispatch('MESSAGE_DELETE', d, messageIntent(channel));
  }

  /** Remove messages from history and dispatch MESSAGE_DELETE_BULK. */
  bulkDelete(channelId: string, ids: string[], opts: { dispatch?: boolean } = {}): void {
    const channel = required(this.channels, channelId, 'channel');
    const set = new Set(ids);
    channel.messages = channel.messages.filter((m) => !set.has(m.id));
    const d: Record<string, unknown> = { ids: [...ids], channel_id: channelId };
    if (channel.payload.guild_id) d.guild_id = channel.payload.guild_id;
    if (opts.dispatch !== false) this.gateway.dispatch('MESSAGE_DELETE_BULK', d, messageIntent(channel));
  }

  /** An attachment of a new message; given bytes are served on the CDN (size and URL derived from them). */
  private storeAttachment(channelId: string, a: AttachmentInit): AttachmentPayload {
    const attId = this.nextId();
    let url = a.url;
    let size = a.size ?? 0;
    if (a.data !== undefined) {
      const bytes = Buffer.from(a.data);
      size = bytes.length;
      url = this.addCdnFile(`/attachments/${channelId}/${attId}/${encodeURIComponent(a.filename)}`, bytes, a.contentType ?? 'application/octet-stream');
    }
    if (!url) throw new Error('attachment needs data or url');
    return attachmentPayload(a, attId, url, size);
  }

  private dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: MessagePayload): void {
    const channel = required(this.channels, message.channel_id, 'channel');
    const botUserId = this.botUser.id;
    if (!this.community.visible(channel)) return;
    this.gateway.dispatchEach(t, (intents) => visibleMessage(message, (intents & Intent.MessageContent) !== 0, botUserId), messageIntent(channel));
  }

  // ---------------------------------------------------------------- REST

  /** Make the next matching REST request(s) fail, e.g. `{ path: /\/messages$/, status: 429, headers: {'retry-after': '0.05'} }`. */
  injectFailure(failure: InjectedFailure): void {
    this.rest.injectFailure(failure);
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** REST requests whose path matches (exact string or RegExp), optionally by method. */
  requestsTo(path: string | RegExp, method = 'GET'): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  // ---------------------------------------------------------------- gateway

  get identifyCount(): number {
    return this.gateway.identifyCount;
  }

  get resumeCount(): number {
    return this.gateway.resumeCount;
  }

  get heartbeatCount(): number {
    return this.gateway.heartbeatCount;
  }

  /** Gateway connections that are identified or resumed and open. */
  get sessionCount(): number {
    return this.gateway.sessionCount;
  }

  /** Resolves once `identifyCount >= total` (default: the next IDENTIFY after this call). */
  waitForIdentify(total = this.identifyCount + 1, timeoutMs = 5_000): Promise<void> {
    return this.gateway.waitCount('identify', total, timeoutMs);
  }

  /** Resolves once `resumeCount >= total` (default: the next RESUME after this call); RESUMED is sent by then. */
  waitForResume(total = this.resumeCount + 1, timeoutMs = 5_000): Promise<void> {
    return this.gateway.waitCount('resume', total, timeoutMs);
  }

  /** Terminate every gateway socket (no close frame): clients resume ~0.5 s later. Returns how many. */
  dropConnections(): number {
    return this.gateway.terminateAll();
  }

  /** Close every gateway socket with a close code (e.g. 4000 → resume, 4004 → fatal). */
  closeConnections(code: number, reason = ''): void {
    this.gateway.closeAll(code, reason);
  }

  /** Send a raw dispatch to every live session (for events the fake has no helper for). */
  dispatchRaw(t: string, d: object): void {
    this.gateway.dispatch(t, d);
  }
}

/** The intent a client needs to receive events of this channel's messages. */
function messageIntent(channel: FakeChannel): number {
  return channel.payload.guild_id ? Intent.GuildMessages : Intent.DirectMessages;
}
