import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { RetryPolicy } from '../../lib/backoff.js';
import type { ChatIngest } from './ingest.js';
import type { DiscordLinks } from './links.js';
import { ChannelSyncState, type LiveEntry } from './sync-state.js';
import { backfillThreads, refreshReactions } from './thread-backfill.js';
import type { ChatMessageInput, ChatThreadInput, DiscordLink, ReactionChange } from './types.js';

/** A page of channel history, already mapped, oldest first. */
export interface HistoryPage {
  messages: ChatMessageInput[];
  /** Newest message id the platform returned (including messages that were filtered out), null when empty. */
  newestId: string | null;
  /** How many messages the platform returned (a full page means: ask again). */
  fetched: number;
}

/** Reads channel history from the chat platform (Discord REST in production). */
export interface HistorySource {
  /** The `limit` messages right after `after` (Discord's `after=` paging). */
  after(discordChannelId: string, after: string, limit: number): Promise<HistoryPage>;
  /** The newest `limit` messages (first sync of a new connection). */
  latest(discordChannelId: string, limit: number): Promise<HistoryPage>;
  /** The channel's active threads and those archived at or after `archivedSinceMs` (ids; `after()` reads their messages). */
  threads(discordChannelId: string, archivedSinceMs: number): Promise<string[]>;
}

export interface ChatSyncOptions {
  /** Messages per history request (Discord allows 100). */
  pageSize?: number;
  /** First sync of a new connection: how many recent messages to bring in. */
  initialMessages?: number;
  /** Backoff of a failed pass: base doubles up to max, with equal jitter (half of each delay random). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

interface Tracked {
  link: DiscordLink;
  state: ChannelSyncState;
  markWriteQueued: boolean;
  /** The running backfill pass, if any. */
  running: Promise<void> | null;
}

/**
 * Keeps connected channels complete: live messages, edits and deletes from the
 * gateway, and backfill passes through the history API after every start,
 * reconnect, resume or failed write. Owns the per-channel sync state; knows
 * nothing about discord.js (src/discord feeds it plain inputs).
 */
export class ChatSync {
  private readonly tracked = new Map<string, Tracked>(); // by Discord channel id
  /** Last operation per message id: an edit or delete waits for the message's own write. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly opts: Required<ChatSyncOptions>;
  /** Failed passes are retried as long as the channel stays connected: no attempt limit. */
  private readonly retry: RetryPolicy;
  private connected = false;
  private stopped = false;
  /** Re-reads of `discord_links` started, and the newest one applied. */
  private reads = 0;
  private applied = 0;

  constructor(
    private readonly ingest: ChatIngest,
    private readonly links: DiscordLinks,
    private readonly source: HistorySource,
    private readonly clock: Clock,
    private readonly logger: Logger,
    opts: ChatSyncOptions = {},
  ) {
    this.opts = {
      pageSize: opts.pageSize ?? 100,
      initialMessages: opts.initialMessages ?? 100,
      retryBaseMs: opts.retryBaseMs ?? 5_000,
      retryMaxMs: opts.retryMaxMs ?? 5 * 60_000,
    };
    this.retry = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: this.opts.retryBaseMs, maxDelayMs: this.opts.retryMaxMs };
  }

  /** The link of a Discord channel, when it is connected. */
  linkOf(discordChannelId: string): DiscordLink | undefined {
    return this.tracked.get(discordChannelId)?.link;
  }

  /** Every connected channel as last read from the database. */
  get connectedLinks(): DiscordLink[] {
    return [...this.tracked.values()].map((t) => t.link);
  }

  /** The sync state of a Discord channel (tests, status). */
  stateOf(discordChannelId: string): ChannelSyncState | undefined {
    return this.tracked.get(discordChannelId)?.state;
  }

  /**
   * Re-reads `discord_links`: a new connection (from the CLI, while the bot
   * runs) gets a first pass; a removed one is dropped. Returns the new links.
   */
  async refresh(): Promise<DiscordLink[]> {
    const read = ++this.reads;
    const rows = await this.links.list();
    // Two re-reads can overlap (the timer and a gateway reconnect): an older answer must not undo a newer one.
    if (read < this.applied) return [];
    this.applied = read;
    const seen = new Set<string>();
    const added: DiscordLink[] = [];
    for (const link of rows) {
      seen.add(link.discordChannelId);
      const t = this.tracked.get(link.discordChannelId);
      if (t && t.link.channelId === link.channelId) {
        // Names may have been filled. Its syncedUntil may lag a queued mark write: only t.state.mark counts.
        t.link = link;
        continue;
      }
      this.tracked.set(link.discordChannelId, { link, state: new ChannelSyncState(link.syncedUntil), markWriteQueued: false, running: null });
      added.push(link);
    }
    for (const id of [...this.tracked.keys()]) if (!seen.has(id)) this.tracked.delete(id);
    return added;
  }

  /** The gateway is (back) up after a connect, reconnect or resume: whatever happened meanwhile is unknown. */
  gatewayUp(): void {
    this.connected = true;
    for (const t of this.tracked.values()) {
      t.state.gap();
      t.state.retryAt = 0; // a fresh connection is worth an immediate try, whatever the backoff said
    }
    this.runDuePasses();
  }

  /** The gateway went away: live messages stop, passes wait for it to come back. */
  gatewayDown(): void {
    this.connected = false;
    for (const t of this.tracked.values()) t.state.gap();
  }

  /** Periodic: pick up new connections, retry failed passes. */
  async tick(): Promise<void> {
    if (this.stopped) return;
    await this.refresh();
    if (this.stopped) return;
    this.runDuePasses();
  }

  /** A new message from the gateway. Resolves once it is stored (or failed and logged). */
  live(discordChannelId: string, input: ChatMessageInput): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t || this.stopped) return Promise.resolve();
    const entry = t.state.liveReceived(input.messageId);
    return this.track(
      input.messageId,
      this.ingest.store(t.link, [input]).then(
        () => this.settleLive(t, entry, true),
        (err: unknown) => {
          this.logger.error({ err, messageId: input.messageId, channelId: t.link.channelId }, 'storing a chat message failed; a backfill pass will retry it');
          this.settleLive(t, entry, false);
        },
      ),
    );
  }

  /**
   * An edited message (text and/or files). An edit of a message that is not
   * stored yet while a backfill runs is applied again once the pass is over:
   * the page may have been fetched before the edit.
   */
  edit(discordChannelId: string, input: ChatMessageInput): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t || this.stopped) return Promise.resolve();
    const apply = async () => {
      await this.after(input.messageId);
      if ((await this.ingest.edit(t.link, input)) === 'missing' && t.running) {
        await t.running;
        await this.ingest.edit(t.link, input);
      }
    };
    return this.track(
      input.messageId,
      apply().catch((err: unknown) => this.logger.error({ err, messageId: input.messageId }, 'storing a chat edit failed')),
    );
  }

  /**
   * Deleted messages (one, or a bulk delete). Deleted again after a running
   * backfill pass, which may have fetched them before they were deleted.
   */
  remove(discordChannelId: string, messageIds: string[]): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t || this.stopped || messageIds.length === 0) return Promise.resolve();
    const apply = async () => {
      await Promise.all(messageIds.map((id) => this.after(id)));
      if ((await this.ingest.remove(t.link, messageIds)) < messageIds.length && t.running) {
        await t.running;
        await this.ingest.remove(t.link, messageIds);
      }
    };
    return this.track(
      messageIds,
      apply().catch((err: unknown) => this.logger.error({ err, count: messageIds.length }, 'deleting chat messages failed')),
    );
  }

  /** A thread or forum post was created, renamed, archived or re-tagged under a connected channel. */
  thread(discordChannelId: string, thread: ChatThreadInput): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t || this.stopped) return Promise.resolve();
    // Chained on the thread id: a forum post's starter message has the same id, so its write goes first.
    const apply = async () => {
      await this.after(thread.id);
      await this.ingest.saveThread(t.link, thread);
    };
    return this.track(thread.id, apply().catch((err: unknown) => this.logger.error({ err, threadId: thread.id }, 'storing a Discord thread failed')));
  }

  /** A reaction event on a message of a connected channel (or of one of its threads), after the message's own write. */
  react(discordChannelId: string, messageId: string, change: ReactionChange): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t || this.stopped) return Promise.resolve();
    const apply = async () => {
      await this.after(messageId);
      await this.ingest.react(t.link, messageId, change);
    };
    return this.track(messageId, apply().catch((err: unknown) => this.logger.error({ err, messageId }, 'storing a reaction failed')));
  }

  /** Records guild and channel names seen by the bot (on ready and on channel/guild updates). */
  names(discordChannelId: string, names: { guildId: string | null; guildName: string | null; channelName: string | null }): Promise<void> {
    const t = this.tracked.get(discordChannelId);
    if (!t) return Promise.resolve();
    const l = t.link;
    if (l.guildId === names.guildId && l.guildName === names.guildName && l.discordChannelName === names.channelName) return Promise.resolve();
    t.link = { ...l, guildId: names.guildId, guildName: names.guildName, discordChannelName: names.channelName };
    return this.track(
      null,
      this.ingest.setNames(l, names).then(
        () => undefined,
        (err: unknown) => this.logger.warn({ err }, 'storing Discord names failed'),
      ),
    );
  }

  /** Runs a pass for every channel that needs one and is not waiting for a retry. */
  runDuePasses(): void {
    if (!this.connected || this.stopped) return;
    const now = this.clock.now();
    for (const t of this.tracked.values()) {
      if (t.state.passRequested && !t.state.backfilling && now >= t.state.retryAt) {
        const p = this.pass(t);
        t.running = p;
        const clear = () => {
          if (t.running === p) t.running = null;
        };
        p.then(clear, clear);
        void this.track(null, p);
      }
    }
  }

  /** Resolves when everything started so far has settled (tests, stop). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Stops taking new work (events, passes); what runs finishes. */
  halt(): void {
    this.stopped = true;
  }

  /** Stops taking work and waits for what is running. */
  async stop(): Promise<void> {
    this.halt();
    await this.idle();
  }

  /** Retry now the channels that are not in sync (e.g. the bot just joined their server). */
  retrySoon(discordChannelIds: string[]): void {
    for (const id of discordChannelIds) {
      const st = this.tracked.get(id)?.state;
      if (st && !st.isLive) st.retryAt = 0;
    }
    this.runDuePasses();
  }

  /**
   * One backfill pass: the threads' messages after the mark, then the channel
   * from the mark, page by page (oldest first) until a page comes back short.
   * Each channel page and the mark commit together. A first sync (no mark yet)
   * starts with the newest `initialMessages` messages of the channel, threads live only.
   */
  private async pass(t: Tracked): Promise<void> {
    const token = t.state.beginPass();
    const { link } = t;
    let completed = false;
    let stored = 0;
    try {
      let after = t.state.mark;
      const current = () => !this.stopped && this.tracked.get(link.discordChannelId) === t;
      if (after !== null) stored += await backfillThreads(this.source, this.ingest, link, after, this.opts.pageSize, current);
      if (after === null) {
        const page = await this.source.latest(link.discordChannelId, this.opts.initialMessages);
        after = await this.storePage(t, page);
        stored += page.messages.length;
      }
      while (after !== null && current()) {
        const page = await this.source.after(link.discordChannelId, after, this.opts.pageSize);
        if (page.fetched === 0) break;
        after = await this.storePage(t, page);
        stored += page.messages.length;
        if (page.fetched < this.opts.pageSize) break;
      }
      completed = !this.stopped;
      if (stored > 0) this.logger.info({ channelId: link.channelId, discordChannelId: link.discordChannelId, messages: stored }, 'Discord backfill stored messages');
    } catch (err) {
      if (!this.stopped) this.logger.warn({ err, channelId: link.channelId, discordChannelId: link.discordChannelId }, 'Discord backfill failed; retrying later');
    } finally {
      t.state.endPass(token, completed, this.clock.now(), this.retry);
      this.queueMarkWrite(t);
    }
    // A gap or a request during the pass: go again (a failed pass waits for its retry time).
    if (t.state.passRequested && this.connected && !this.stopped && this.clock.now() >= t.state.retryAt) await this.pass(t);
  }

  private async storePage(t: Tracked, page: HistoryPage): Promise<string | null> {
    if (page.newestId === null) return t.state.mark;
    await this.ingest.store(t.link, page.messages, { advanceMarkTo: page.newestId });
    t.state.markWritten(page.newestId);
    await refreshReactions(this.ingest, t.link, page.messages);
    return t.state.mark;
  }

  private settleLive(t: Tracked, entry: LiveEntry, stored: boolean): void {
    t.state.liveSettled(entry, stored);
    if (!stored) this.runDuePasses();
    this.queueMarkWrite(t);
  }

  /** At most one queued mark write per channel; it writes whatever the state allows when the batch runs. */
  private queueMarkWrite(t: Tracked): void {
    if (t.markWriteQueued || t.state.target() === null || this.stopped) return;
    t.markWriteQueued = true;
    const p = Promise.resolve().then(async () => {
      let written = false;
      try {
        const target = t.state.target();
        if (target) {
          await this.ingest.advanceMark(t.link, target); // false when already there: fine either way
          t.state.markWritten(target);
          written = true;
        }
      } catch (err) {
        this.logger.warn({ err }, 'storing the Discord sync mark failed');
      } finally {
        t.markWriteQueued = false;
      }
      // A message that settled while this write was in flight found it queued and left its mark to
      // it: written now, not at the next message (after a failure, the next message retries).
      if (written) this.queueMarkWrite(t);
    });
    void this.track(null, p);
  }

  private after(messageId: string): Promise<unknown> {
    return (this.chains.get(messageId) ?? Promise.resolve()).catch(() => undefined);
  }

  private track(messageIds: string | string[] | null, p: Promise<void>): Promise<void> {
    const ids = messageIds === null ? [] : typeof messageIds === 'string' ? [messageIds] : messageIds;
    this.inflight.add(p);
    for (const id of ids) this.chains.set(id, p);
    const done = () => {
      this.inflight.delete(p);
      for (const id of ids) if (this.chains.get(id) === p) this.chains.delete(id);
    };
    p.then(done, done);
    return p;
  }
}
