import PQueue from 'p-queue';
import type { Clock } from '../../lib/clock.js';
import { alertIdFromSnowflake, type IdGenerator } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { type MediaFetcher, MAX_ATTACHMENTS, MAX_MEDIA_BYTES, type MediaStore, type MediaBatch, type ReferenceCheck } from '../media.js';
import { formatBytes } from '../../lib/bytes.js';
import type { AttachmentRecord, AttachmentRow, ChatMessageWrites, ChatReaction, NewChatMessage, ReplyParent } from '../alert-store.js';
import type { ChangeBus } from '../changes.js';
import { AppError } from '../errors.js';
import { excerpt } from './text.js';
import type { ChatAttachmentInput, ChatMessageInput, ChatReactionInput, ChatThreadInput, DiscordLink, ReactionChange } from './types.js';

export interface ChatIngestDeps {
  store: ChatMessageWrites;
  ids: IdGenerator;
  clock: Clock;
  bus: ChangeBus;
  media: Pick<MediaStore, 'batch'>;
  fetcher: Pick<MediaFetcher, 'fetchInto'>;
  logger: Logger;
  /** Deletes media files no alert references any more (after COMMIT). */
  releaseMedia: (keys: string[]) => void;
  /** Whether any alert still uses a media key (services.ts builds the one check). */
  isMediaReferenced: ReferenceCheck;
  /** Attachment downloads running at once, across messages. */
  downloadConcurrency?: number;
}

type LinkRef = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** Content types worth downloading: everything else (zip, pdf, text) can never pass the media rules. */
const MEDIA_CONTENT_TYPE = /^(image|video|audio)\/|^application\/octet-stream\b/i;

/**
 * Stores chat messages as `kind = 'chat'` alerts. A message's alert id is
 * derived from its snowflake (alertIdFromSnowflake), so the list follows
 * Discord's order and a reply can name its parent before the parent is stored;
 * `activity_key` is a fresh key at ingest, so a backfilled old message still
 * counts as unread against every read watermark.
 *
 * Every write goes through the group-commit batcher and records the stream
 * event in the same transaction; attachments are downloaded BEFORE the write
 * (never an await inside a transaction), only for messages not stored yet,
 * into a media batch that is committed after the database commit and rolled
 * back otherwise. No e-mail jobs: chat is read in the API, not pushed.
 *
 * Idempotent on the message id: storing a message twice (live and backfill,
 * or a replayed page) changes nothing the second time.
 */
export class ChatIngest {
  private readonly downloads: PQueue;
  private emitScheduled = false;
  /** The thread state last written per `channelId thread` (name, tags, archived): a message in a known thread writes no thread row. */
  private readonly threads = new Map<string, string>();
  /** The store running for each message id, so a second store of the same message waits for it. */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ChatIngestDeps) {
    this.downloads = new PQueue({ concurrency: deps.downloadConcurrency ?? 4 });
  }

  /**
   * Stores new messages in the given order (a live message, or a backfill page
   * oldest first) in one transaction; with `advanceMarkTo`, the link's sync mark
   * moves in that same transaction, so the mark never covers a message that is
   * not stored. Resolves after COMMIT with the number of rows created.
   */
  async store(link: LinkRef, inputs: ChatMessageInput[], opts: { advanceMarkTo?: string } = {}): Promise<{ created: number }> {
    // A message another store is still writing (the live copy, while a pass fetched it again): wait
    // for that write, so the check below sees it stored and its files are not downloaded twice.
    const running = inputs.map((i) => this.writing.get(i.messageId)).filter((w) => w !== undefined);
    if (running.length > 0) await Promise.allSettled(running);
    const write = this.write(link, inputs, opts);
    for (const i of inputs) this.writing.set(i.messageId, write);
    try {
      return await write;
    } finally {
      for (const i of inputs) if (this.writing.get(i.messageId) === write) this.writing.delete(i.messageId);
    }
  }

  private async write(link: LinkRef, inputs: ChatMessageInput[], opts: { advanceMarkTo?: string }): Promise<{ created: number }> {
    // Messages with files that are stored already (a replayed page, a live message
    // the pass fetched again) are left out up front, so their files are not downloaded again.
    for (const input of inputs) if (input.thread) await this.saveThread(link, input.thread);
    const fresh = inputs.some((i) => i.attachments.length > 0) ? await this.notStored(inputs) : inputs;
    const batch = fresh.some((i) => i.attachments.length > 0) ? this.deps.media.batch() : null;
    try {
      const files = batch ? await Promise.all(fresh.map((i) => this.download(i, i.attachments, batch))) : null;
      const messages: NewChatMessage[] = fresh.map((input, i) => ({
        alertId: alertIdFromSnowflake(input.messageId),
        messageId: input.messageId,
        text: input.text,
        authorJson: JSON.stringify(input.author),
        reply: replyOf(input),
        activityKey: this.deps.ids.next('alt'),
        createdAt: input.createdAt,
        updatedAt: input.editedAt ?? input.createdAt,
        attachments: files?.[i] ?? [],
        thread: input.thread ? { id: input.thread.id, ...threadJson(input.thread) } : null,
        ...reactionColumns(input.reactions ?? []),
      }));
      const { created, skippedWithFiles } = await this.deps.store.insertChatMessages(link, messages, this.deps.clock.now(), opts);
      if (batch) await this.settle(batch, skippedWithFiles === 0);
      if (created > 0) this.emitSoon();
      return { created };
    } catch (err) {
      if (batch) await this.settle(batch, false);
      throw err;
    }
  }

  /**
   * Applies an edit in place: the text, and the attachments when the set of
   * files changed (Discord edits can remove files). Keeps the id, the position
   * in the list and the read state (an edit does not resurface a message).
   * 'missing' when the message is not stored (a backfill brings the edited text along).
   */
  async edit(link: LinkRef, input: ChatMessageInput): Promise<'updated' | 'unchanged' | 'missing'> {
    const id = alertIdFromSnowflake(input.messageId);
    const current = await this.deps.store.chatMessage(id, link.channelId);
    if (!current) return 'missing';
    const stored = current.attachments;
    const same = (a: AttachmentRow, i: ChatAttachmentInput) => a.name === i.name && (i.size === 0 || a.size === i.size);
    const kept = stored.filter((a) => input.attachments.some((i) => same(a, i)));
    const added = input.attachments.filter((i) => !stored.some((a) => same(a, i)));
    const batch = added.length > 0 ? this.deps.media.batch() : null;
    try {
      const fresh = batch ? await this.download(input, added, batch) : [];
      const filesChanged = kept.length !== stored.length || fresh.length > 0;
      const textChanged = current.message !== input.text;
      if (!filesChanged && !textChanged) {
        if (batch) await this.settle(batch, false);
        return 'unchanged';
      }
      const now = this.deps.clock.now();
      const { updated, released } = await this.deps.store.editChatMessage(link, id, {
        text: input.text,
        editedAt: input.editedAt ?? now,
        files: filesChanged ? [...kept, ...fresh] : null,
        now,
      });
      const changed = updated ? ('updated' as const) : ('missing' as const);
      if (batch) await this.settle(batch, changed === 'updated');
      if (released.length) this.deps.releaseMedia(released);
      if (changed === 'updated') this.emitSoon();
      return changed;
    } catch (err) {
      if (batch) await this.settle(batch, false);
      throw err;
    }
  }

  /** Deletes messages (single or bulk delete); their attachments and read exceptions cascade, and files nothing else uses are removed. */
  async remove(link: LinkRef, messageIds: string[]): Promise<number> {
    if (messageIds.length === 0) return 0;
    const { removed, released } = await this.deps.store.removeChatMessages(link, messageIds.map(alertIdFromSnowflake), this.deps.clock.now());
    if (released.length) this.deps.releaseMedia(released);
    if (removed > 0) this.emitSoon();
    return removed;
  }

  /**
   * Records a thread's current name, tags and archived flag, and rewrites the copies its stored
   * messages carry; skipped when this process already wrote exactly that state.
   */
  async saveThread(link: LinkRef, thread: ChatThreadInput): Promise<void> {
    const key = `${link.channelId} ${thread.id}`;
    const state = JSON.stringify([thread.name, thread.tags, thread.archived]);
    if (this.threads.get(key) === state) return;
    const { updated } = await this.deps.store.saveThread(
      link,
      { threadId: thread.id, name: thread.name, tags: thread.tags, archived: thread.archived, starterAlertId: alertIdFromSnowflake(thread.id) },
      this.deps.clock.now(),
    );
    this.threads.set(key, state);
    if (updated > 0) this.emitSoon();
  }

  /** Applies a reaction event to a stored message's counts; false when the message is not stored (a backfill brings exact counts). */
  async react(link: LinkRef, messageId: string, change: ReactionChange): Promise<boolean> {
    const changed = await this.deps.store.changeReactions(link, alertIdFromSnowflake(messageId), (current) => applyReaction(current, change), this.deps.clock.now());
    if (changed) this.emitSoon();
    return changed;
  }

  /** Sets a stored message's counts to the exact ones of its message object (a backfill). */
  async setReactions(link: LinkRef, messageId: string, reactions: ChatReactionInput[]): Promise<boolean> {
    const exact = reactions.filter((r) => r.count > 0).map((r) => ({ emoji: r.emoji, count: r.count }));
    const changed = await this.deps.store.changeReactions(link, alertIdFromSnowflake(messageId), () => exact, this.deps.clock.now());
    if (changed) this.emitSoon();
    return changed;
  }

  /** Moves the link's sync mark forward (never back). */
  advanceMark(link: LinkRef, messageId: string): Promise<boolean> {
    return this.deps.store.advanceMark(link, messageId);
  }

  /** Records the guild and channel names the bot saw. */
  setNames(link: LinkRef, names: { guildId: string | null; guildName: string | null; channelName: string | null }): Promise<boolean> {
    return this.deps.store.setLinkNames(link, names);
  }

  /** The inputs whose message is not stored yet, in order (one query for all of them). */
  private async notStored(inputs: ChatMessageInput[]): Promise<ChatMessageInput[]> {
    const ids = inputs.map((i) => alertIdFromSnowflake(i.messageId));
    const stored = await this.deps.store.storedIds(ids);
    return stored.size === 0 ? inputs : inputs.filter((_, i) => !stored.has(ids[i]!));
  }

  /**
   * Downloads a message's files into the batch. A file that cannot be stored
   * (unsupported format, too large, download failed) is skipped with a warning:
   * the message itself is still stored, without inventing anything for it.
   */
  private async download(input: ChatMessageInput, items: ChatAttachmentInput[], batch: MediaBatch): Promise<AttachmentRecord[]> {
    const skip = (item: ChatAttachmentInput, reason: string) =>
      this.deps.logger.warn({ messageId: input.messageId, file: item.name, reason }, 'chat attachment skipped');
    const wanted = items.filter((item, i) => {
      if (i >= MAX_ATTACHMENTS) return skip(item, `more than ${MAX_ATTACHMENTS} files`), false;
      if (item.size > MAX_MEDIA_BYTES) return skip(item, `${formatBytes(item.size)} is over every media limit`), false;
      if (item.contentType && !MEDIA_CONTENT_TYPE.test(item.contentType)) return skip(item, `${item.contentType} is not a supported media format`), false;
      return true;
    });
    const results = await Promise.all(
      wanted.map((item) =>
        this.downloads.add(async (): Promise<AttachmentRecord | null> => {
          try {
            const media = await this.deps.fetcher.fetchInto(item.url, batch, { label: `file "${item.name}"` });
            return { mediaKey: media.key, mime: media.mime, kind: media.kind, name: item.name, size: media.size };
          } catch (err) {
            skip(item, err instanceof AppError ? (err.detail ?? err.code) : (err as Error).message);
            return null;
          }
        }),
      ),
    );
    return results.filter((r): r is AttachmentRecord => r !== null && r !== undefined);
  }

  /** Keeps the batch's files when every row that needs them committed; otherwise deletes the unreferenced ones. */
  private async settle(batch: MediaBatch, keep: boolean): Promise<void> {
    try {
      if (keep) await batch.commit();
      else await batch.rollback(this.deps.isMediaReferenced);
    } catch (err) {
      this.deps.logger.warn({ err }, 'settling chat attachments failed');
    }
  }

  /** One stream wake-up per event-loop turn, however many messages a group commit stored. */
  private emitSoon(): void {
    if (this.emitScheduled) return;
    this.emitScheduled = true;
    setImmediate(() => {
      this.emitScheduled = false;
      this.deps.bus.emit('alert-events');
    });
  }
}

/** The copies of a thread its messages carry. */
function threadJson(thread: ChatThreadInput): { json: string; tagsJson: string } {
  return { json: JSON.stringify({ id: thread.id, name: thread.name }), tagsJson: JSON.stringify(thread.tags) };
}

function reactionColumns(reactions: ChatReactionInput[]): { reactionsJson: string | null; reactionCount: number } {
  const kept = reactions.filter((r) => r.count > 0).map((r) => ({ emoji: r.emoji, count: r.count }));
  return { reactionsJson: kept.length > 0 ? JSON.stringify(kept) : null, reactionCount: kept.reduce((n, r) => n + r.count, 0) };
}

/** A reaction event on stored counts: a new emoji goes last, a count that drops to 0 leaves. */
export function applyReaction(current: ChatReaction[], change: ReactionChange): ChatReaction[] {
  if (change.kind === 'remove-all') return [];
  if (change.kind === 'remove-emoji') return current.filter((r) => r.emoji !== change.emoji);
  const delta = change.kind === 'add' ? 1 : -1;
  const found = current.some((r) => r.emoji === change.emoji);
  const next = current.map((r) => (r.emoji === change.emoji ? { emoji: r.emoji, count: r.count + delta } : r));
  if (!found && delta > 0) next.push({ emoji: change.emoji, count: 1 });
  return next.filter((r) => r.count > 0);
}

/**
 * `replyTo` as stored: the parent's alert id (a client can GET it), its
 * author's display name and a short excerpt. When the platform did not send
 * the parent along, the stored copy of the parent is used (looked up inside
 * the write: the parent may be in the same batch).
 */
function replyOf(input: ChatMessageInput): NewChatMessage['reply'] {
  const ref = input.replyTo;
  if (!ref) return null;
  const messageId = alertIdFromSnowflake(ref.messageId);
  return {
    parentId: ref.author === null ? messageId : null,
    json(parent: ReplyParent | undefined) {
      let author = ref.author;
      let text = ref.text;
      if (author === null && parent) {
        author = parent.authorJson ? authorName(parent.authorJson) : null;
        text = parent.message;
      }
      return JSON.stringify({ messageId, author: author ?? 'unknown', excerpt: excerpt(text) });
    },
  };
}

/** The display name in a stored author (written by this module from a ChatAuthor). */
function authorName(authorJson: string): string | null {
  const author: unknown = JSON.parse(authorJson);
  return typeof author === 'object' && author !== null && 'name' in author && typeof author.name === 'string' ? author.name : null;
}
