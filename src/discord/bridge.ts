import {
  Client,
  Events,
  GatewayIntentBits,
  Partials,
  Status,
  type AnyThreadChannel,
  type Channel,
  type ClientEvents,
  type ClientOptions,
  type Guild,
  type Message,
  type PartialMessage,
} from 'discord.js';
import type { Config } from '../config.js';
import type { ChatIngest } from '../domain/chat/ingest.js';
import type { DiscordServerEntry } from '../domain/chat/directory.js';
import type { DiscordLinks } from '../domain/chat/links.js';
import type { ReactionChange } from '../domain/chat/types.js';
import { ChatSync, type ChatSyncOptions } from '../domain/chat/sync.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { DiscordHistory } from './history.js';
import { emojiLabel, isIngestible, linkedChannelId, toChatInput, toThreadInput } from './map.js';
import { serversOf } from './servers.js';

/** What the bridge needs from Discord (also what to enable in the developer portal: the last two are privileged). */
export const BRIDGE_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
  // Not privileged: reaction add / remove / remove-all / remove-emoji events.
  GatewayIntentBits.GuildMessageReactions,
];

export interface DiscordBridgeOptions extends ChatSyncOptions {
  /** How often `discord_links` is re-read and failed passes are retried. */
  refreshIntervalMs?: number;
  /** Extra discord.js client options (tests raise the REST rate limit). */
  client?: Partial<ClientOptions>;
}

/** What the bridge uses; services.ts builds the chat ingest and the links. */
export interface DiscordBridgeDeps {
  config: Pick<Config, 'discordToken' | 'discordApiUrl'>;
  logger: Logger;
  clock: Clock;
  chatIngest: ChatIngest;
  discordLinks: DiscordLinks;
}

export interface DiscordBridgeHandle {
  client: Client;
  sync: ChatSync;
  /** discord.js' gateway status enum, handed to src/ops so that it need not import discord.js (loaded only with DISCORD_TOKEN). */
  statuses: typeof Status;
  /** Resolves at the first ClientReady. */
  ready: Promise<void>;
  /** The servers the bot is in and their connectable channels, from the gateway's cache. */
  servers(): DiscordServerEntry[];
  stop(): Promise<void>;
}

/** The one discord.js client of the process, configured from the service config. */
export function createDiscordClient(deps: Pick<DiscordBridgeDeps, 'config'>, extra: Partial<ClientOptions> = {}): Client {
  return new Client({
    intents: BRIDGE_INTENTS,
    // Message: edits and deletes of messages not in the cache still fire; Channel: uncached channels.
    // Reaction, User: reaction events on uncached messages and by uncached users still fire.
    partials: [Partials.Message, Partials.Channel, Partials.Reaction, Partials.User],
    ...extra,
    rest: { ...(deps.config.discordApiUrl ? { api: deps.config.discordApiUrl } : {}), ...extra.rest },
  });
}

/**
 * The only place that subscribes to discord.js events. Each listener filters
 * (not a connected channel, the bot's own message, a system notice), maps the
 * discord.js object to a plain input and hands it to ChatSync. Every handler is
 * guarded: one bad message is logged and skipped, never fatal.
 */
export class DiscordBridge {
  readonly sync: ChatSync;
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly deps: DiscordBridgeDeps,
    readonly client: Client,
    private readonly opts: DiscordBridgeOptions = {},
  ) {
    // The history reader needs this client, so ChatSync is built here; everything else comes wired.
    this.sync = new ChatSync(deps.chatIngest, deps.discordLinks, new DiscordHistory(client, deps.logger), deps.clock, deps.logger, opts);
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    this.wire();
  }

  async start(): Promise<void> {
    await this.sync.refresh();
    try {
      await this.client.login(this.deps.config.discordToken);
    } catch (err) {
      await this.client.destroy().catch(() => undefined);
      throw new Error(loginAdvice(err), { cause: err });
    }
    this.timer = setInterval(() => this.guard('refresh', () => this.refresh()), this.opts.refreshIntervalMs ?? 5_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.sync.halt();
    await this.client.destroy();
    await this.sync.stop();
  }

  private wire(): void {
    this.on(Events.ClientReady, (client) => {
      const linked = this.sync.connectedLinks.length;
      this.deps.logger.info({ user: client.user.tag, guilds: client.guilds.cache.size, connectedChannels: linked }, 'Discord bridge connected');
      for (const link of this.sync.connectedLinks) {
        if (!client.channels.cache.has(link.discordChannelId)) {
          this.deps.logger.warn({ channelId: link.channelId, discordChannelId: link.discordChannelId }, 'the bot cannot see this Discord channel: invite it to the server and give it View Channel + Read Message History');
        }
      }
      this.resolveReady();
    });
    // Ready after an IDENTIFY (the first one and every new session) and RESUMED:
    // events may have been missed either way, so every channel gets a backfill pass.
    this.on(Events.ShardReady, () => this.gatewayUp());
    this.on(Events.ShardResume, () => this.gatewayUp());
    this.on(Events.ShardReconnecting, () => this.sync.gatewayDown());
    this.on(Events.ShardDisconnect, (event) => {
      this.sync.gatewayDown();
      this.deps.logger.error({ code: event.code }, 'Discord gateway closed for good; the bridge stops receiving messages');
    });
    this.on(Events.ShardError, (err) => this.deps.logger.warn({ err }, 'Discord gateway error'));
    this.on(Events.Error, (err) => this.deps.logger.error({ err }, 'Discord client error'));
    this.on(Events.Warn, (message) => this.deps.logger.warn({ message }, 'Discord client warning'));

    // A message in a thread or forum post belongs to its parent's link.
    const linkOfMessage = (m: Message | PartialMessage) => linkedChannelId(m.channel, m.channelId);
    this.on(Events.MessageCreate, (message) => {
      const linked = linkOfMessage(message);
      if (!this.sync.linkOf(linked) || !isIngestible(message, this.client.user?.id)) return;
      return this.sync.live(linked, toChatInput(message));
    });
    this.on(Events.MessageUpdate, async (_old, updated) => {
      const linked = linkOfMessage(updated);
      if (!this.sync.linkOf(linked)) return;
      const message = updated.partial ? await updated.fetch() : updated;
      if (!isIngestible(message, this.client.user?.id)) return;
      return this.sync.edit(linked, toChatInput(message));
    });
    this.on(Events.MessageDelete, (message: Message | PartialMessage) => this.sync.remove(linkOfMessage(message), [message.id]));
    this.on(Events.MessageBulkDelete, (messages, channel) => this.sync.remove(linkedChannelId(channel, channel.id), [...messages.keys()]));
    // Threads and forum posts: creation, rename, archiving and tag changes keep the stored name and tags current.
    // A deleted thread's messages stay stored (as a disconnected channel's do).
    const thread = (t: AnyThreadChannel) => (t.parentId && this.sync.linkOf(t.parentId) ? this.sync.thread(t.parentId, toThreadInput(t)) : undefined);
    this.on(Events.ThreadCreate, (t) => thread(t));
    this.on(Events.ThreadUpdate, (_old, t) => thread(t));
    this.on(Events.ThreadListSync, (threads) => Promise.all(threads.map((t) => thread(t))));
    // Reactions: counts only (no per-user data), applied after the message's own write.
    const react = (m: Message | PartialMessage, change: ReactionChange) => {
      const linked = linkOfMessage(m);
      return this.sync.linkOf(linked) ? this.sync.react(linked, m.id, change) : undefined;
    };
    this.on(Events.MessageReactionAdd, (r) => react(r.message, { kind: 'add', emoji: emojiLabel(r.emoji) }));
    this.on(Events.MessageReactionRemove, (r) => react(r.message, { kind: 'remove', emoji: emojiLabel(r.emoji) }));
    this.on(Events.MessageReactionRemoveAll, (m) => react(m, { kind: 'remove-all' }));
    this.on(Events.MessageReactionRemoveEmoji, (r) => react(r.message, { kind: 'remove-emoji', emoji: emojiLabel(r.emoji) }));
    this.on(Events.ChannelUpdate, (_old, channel) => this.names(channel));
    this.on(Events.GuildUpdate, (_old, guild) => this.guildNames(guild));
    // The bot joined a server (or it became available): its connected channels can sync now.
    this.on(Events.GuildCreate, (guild) => {
      this.guildNames(guild);
      this.sync.retrySoon(this.sync.connectedLinks.filter((l) => guild.channels.cache.has(l.discordChannelId)).map((l) => l.discordChannelId));
    });
  }

  private async gatewayUp(): Promise<void> {
    await this.sync.refresh();
    if (this.stopped) return;
    this.allNames();
    this.sync.gatewayUp();
  }

  private async refresh(): Promise<void> {
    await this.sync.tick();
    this.allNames();
  }

  private allNames(): void {
    for (const link of this.sync.connectedLinks) {
      const channel = this.client.channels.cache.get(link.discordChannelId);
      if (channel) this.guard('channel names', () => this.names(channel));
    }
    // Threads GUILD_CREATE brought (active ones): a rename while the bot was away is picked up here.
    for (const channel of this.client.channels.cache.values()) {
      if (channel.isThread() && channel.parentId && this.sync.linkOf(channel.parentId)) {
        this.guard('thread names', () => this.sync.thread(channel.parentId!, toThreadInput(channel)));
      }
    }
  }

  private guildNames(guild: Guild): void {
    for (const link of this.sync.connectedLinks) {
      const channel = guild.channels.cache.get(link.discordChannelId);
      if (channel) this.guard('channel names', () => this.names(channel));
    }
  }

  private names(channel: Channel): Promise<void> | void {
    if (channel.isDMBased() || !this.sync.linkOf(channel.id)) return;
    return this.sync.names(channel.id, { guildId: channel.guild.id, guildName: channel.guild.name, channelName: channel.name });
  }

  /** Subscribes a guarded handler: sync throws and async rejections are logged, never thrown into discord.js. */
  private on<E extends keyof ClientEvents>(event: E, handler: (...args: ClientEvents[E]) => unknown): void {
    this.client.on(event, (...args: ClientEvents[E]) => this.guard(String(event), () => handler(...args)));
  }

  private guard(what: string, fn: () => unknown): void {
    try {
      const r = fn();
      if (r instanceof Promise) r.catch((err: unknown) => this.deps.logger.error({ err, event: what }, 'Discord event handler failed'));
    } catch (err) {
      this.deps.logger.error({ err, event: what }, 'Discord event handler failed');
    }
  }
}

/**
 * Starts the bridge: logs in and keeps connected channels in sync until stop().
 * Rejects with operator advice when Discord refuses the token or the intents.
 */
export async function startDiscordBridge(deps: DiscordBridgeDeps, opts: DiscordBridgeOptions = {}): Promise<DiscordBridgeHandle> {
  if (!deps.config.discordToken) throw new Error('DISCORD_TOKEN is not set');
  const bridge = new DiscordBridge(deps, createDiscordClient(deps, opts.client), opts);
  await bridge.start();
  return { client: bridge.client, sync: bridge.sync, statuses: Status, ready: bridge.ready, servers: () => serversOf(bridge.client), stop: () => bridge.stop() };
}

function loginAdvice(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'TokenInvalid') return 'Discord refused DISCORD_TOKEN: copy the bot token again from the developer portal (Bot → Reset Token)';
  if (/disallowed intents/i.test(e.message ?? '')) {
    return 'Discord refused the privileged intents: enable "Message Content Intent" and "Server Members Intent" in the developer portal (Bot → Privileged Gateway Intents)';
  }
  return `Discord login failed: ${e.message ?? String(err)}`;
}
