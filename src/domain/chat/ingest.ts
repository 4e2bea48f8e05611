import type Database from 'better-sqlite3';
import PQueue from 'p-queue';
import type { WriteBatcher } from '../../db/write-batcher.js';
import type { Clock } from '../../lib/clock.js';
import { alertIdFromSnowflake, type IdGenerator } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { MediaFetcher } from '../../media/fetcher.js';
import { MAX_ATTACHMENTS, MAX_MEDIA_BYTES, formatBytes } from '../../media/formats.js';
import type { MediaBatch, MediaStore } from '../../media/store.js';
import type { ChangeBus, ChangeRecorder } from '../changes.js';
import { AppError } from '../errors.js';
import type { AttachmentRecord } from '../webhook/ingest.js';
import type { DiscordLinks } from './links.js';
import { excerpt } from './text.js';
import type { ChatAttachmentInput, ChatMessageInput, DiscordLink } from './types.js';

export interface ChatIngestDeps {
  sqlite: Database.Database;
  batcher: WriteBatcher;
  ids: IdGenerator;
  clock: Clock;
  changes: ChangeRecorder;
  bus: ChangeBus;
  media: MediaStore;
  fetcher: MediaFetcher;
  logger: Logger;
  links: DiscordLinks;
  /** Deletes media files no alert references any more (after COMMIT). */
  releaseMedia?: (keys: string[]) => void;
  /** Whether any alert still uses a media key (services.ts builds the one check). */
  isMediaReferenced: (key: string) => boolean;
  /** Attachment downloads running at once, across messages. */
  downloadConcurrency?: number;
}

type LinkRef = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

interface StoredAttachment extends AttachmentRecord {
  position: number;
}

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
  private readonly s;
  private readonly downloads: PQueue;
  private emitScheduled = false;

  constructor(private readonly d: ChatIngestDeps) {
    const p = (sql: string) => d.sqlite.prepare(sql);
    this.s = {
      // The link check makes a message that arrives while its channel is being
      // disconnected a no-op instead of a row in a channel that no longer mirrors it.
      insert: p(
        `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, external_id, author_json, reply_to_json,
           activity_key, created_at, updated_at)
         SELECT ?, ?, 'chat', '', 'INFO', '', ?, ?, ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM discord_links WHERE channel_id = ? AND discord_channel_id = ?)
         ON CONFLICT DO NOTHING`,
      ),
      insertAttachment: p(
        'INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      parent: p("SELECT author_json AS authorJson, message FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'"),
      current: p(
        "SELECT message, updated_at AS updatedAt FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'",
      ),
      attachments: p(
        'SELECT position, media_key AS mediaKey, mime, kind, name, size FROM alert_attachments WHERE alert_id = ? ORDER BY position',
      ),
      update: p("UPDATE alerts SET message = ?, updated_at = ? WHERE id = ? AND channel_id = ? AND kind = 'chat'"),
      deleteAttachments: p('DELETE FROM alert_attachments WHERE alert_id = ?'),
      attachmentKeys: p('SELECT media_key FROM alert_attachments WHERE alert_id = ?').pluck(),
      remove: p("DELETE FROM alerts WHERE id = ? AND channel_id = ? AND kind = 'chat'"),
      existing: p('SELECT id FROM alerts WHERE id IN (SELECT value FROM json_each(?))').pluck(),
    };
    this.downloads = new PQueue({ concurrency: d.downloadConcurrency ?? 4 });
  }

  /**
   * Stores new messages in the given order (a live message, or a backfill page
   * oldest first) in one transaction; with `advanceMarkTo`, the link's sync mark
   * moves in that same transaction, so the mark never covers a message that is
   * not stored. Resolves after COMMIT with the number of rows created.
   */
  async store(link: LinkRef, inputs: ChatMessageInput[], opts: { advanceMarkTo?: string } = {}): Promise<{ created: number }> {
    // Messages with files that are stored already (a replayed page, a live message
    // the pass fetched again) are left out up front, so their files are not downloaded again.
    const fresh = inputs.some((i) => i.attachments.length > 0) ? this.notStored(inputs) : inputs;
    const batch = fresh.some((i) => i.attachments.length > 0) ? this.d.media.batch() : null;
    let allInserted = true;
    try {
      const files = batch ? await Promise.all(fresh.map((i) => this.download(i, i.attachments, batch))) : null;
      const created = await this.d.batcher.run(() => {
        allInserted = true; // the batcher may run this twice
        const now = this.d.clock.now();
        let n = 0;
        // Still idempotent: a message stored meanwhile (live and backfill at once) is skipped by ON CONFLICT.
        fresh.forEach((input, i) => {
          const id = alertIdFromSnowflake(input.messageId);
          // Positional parameters: measurably cheaper than named ones on this hot path.
          const inserted =
            this.s.insert.run(
              id,
              link.channelId,
              input.text,
              input.messageId,
              JSON.stringify(input.author),
              this.replyJson(link.channelId, input),
              this.d.ids.next('alt'),
              input.createdAt,
              input.editedAt ?? input.createdAt,
              link.channelId,
              link.discordChannelId,
            ).changes > 0;
          if (!inserted) {
            if (files?.[i]?.length) allInserted = false;
            return;
          }
          files?.[i]?.forEach((a, pos) => this.s.insertAttachment.run(id, pos, a.mediaKey, a.mime, a.kind, a.name, a.size));
          this.d.changes.event(link.channelId, id, 'alert.created', now);
          n++;
        });
        if (opts.advanceMarkTo) this.d.links.advanceMark(link, opts.advanceMarkTo);
        return n;
      });
      if (batch) await this.settle(batch, allInserted);
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
    const current = this.s.current.get(id, link.channelId) as { message: string | null; updatedAt: number } | undefined;
    if (!current) return 'missing';
    const stored = this.s.attachments.all(id) as StoredAttachment[];
    const same = (a: StoredAttachment, i: ChatAttachmentInput) => a.name === i.name && (i.size === 0 || a.size === i.size);
    const kept = stored.filter((a) => input.attachments.some((i) => same(a, i)));
    const added = input.attachments.filter((i) => !stored.some((a) => same(a, i)));
    const batch = added.length > 0 ? this.d.media.batch() : null;
    try {
      const fresh = batch ? await this.download(input, added, batch) : [];
      const filesChanged = kept.length !== stored.length || fresh.length > 0;
      const textChanged = current.message !== input.text;
      if (!filesChanged && !textChanged) {
        if (batch) await this.settle(batch, false);
        return 'unchanged';
      }
      const released: string[] = [];
      const changed = await this.d.batcher.run(() => {
        released.length = 0; // the batcher may run this twice
        const editedAt = input.editedAt ?? this.d.clock.now();
        if (this.s.update.run(input.text, editedAt, id, link.channelId).changes === 0) return 'missing' as const;
        if (filesChanged) {
          released.push(...(this.s.attachmentKeys.all(id) as string[]));
          this.s.deleteAttachments.run(id);
          [...kept, ...fresh].forEach((a, pos) => this.s.insertAttachment.run(id, pos, a.mediaKey, a.mime, a.kind, a.name, a.size));
        }
        this.d.changes.event(link.channelId, id, 'alert.updated', this.d.clock.now());
        return 'updated' as const;
      });
      if (batch) await this.settle(batch, changed === 'updated');
      if (released.length) this.d.releaseMedia?.(released);
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
    const released: string[] = [];
    const removed = await this.d.batcher.run(() => {
      released.length = 0; // the batcher may run this twice
      const now = this.d.clock.now();
      let n = 0;
      for (const messageId of messageIds) {
        const id = alertIdFromSnowflake(messageId);
        const keys = this.s.attachmentKeys.all(id) as string[];
        if (this.s.remove.run(id, link.channelId).changes === 0) continue;
        released.push(...keys);
        this.d.changes.event(link.channelId, id, 'alert.deleted', now);
        n++;
      }
      return n;
    });
    if (released.length) this.d.releaseMedia?.(released);
    if (removed > 0) this.emitSoon();
    return removed;
  }

  /** Moves the link's sync mark forward (never back). */
  advanceMark(link: LinkRef, messageId: string): Promise<boolean> {
    return this.d.batcher.run(() => this.d.links.advanceMark(link, messageId));
  }

  /** Records the guild and channel names the bot saw. */
  setNames(link: LinkRef, names: { guildId: string | null; guildName: string | null; channelName: string | null }): Promise<boolean> {
    return this.d.batcher.run(() => this.d.links.setNames(link, names));
  }

  /** The inputs whose message is not stored yet, in order (one query for all of them). */
  private notStored(inputs: ChatMessageInput[]): ChatMessageInput[] {
    const ids = inputs.map((i) => alertIdFromSnowflake(i.messageId));
    const stored = new Set(this.s.existing.all(JSON.stringify(ids)) as string[]);
    return stored.size === 0 ? inputs : inputs.filter((_, i) => !stored.has(ids[i]!));
  }

  /**
   * `replyTo` as stored: the parent's alert id (a client can GET it), its
   * author's display name and a short excerpt. When the platform did not send
   * the parent along, the stored copy of the parent is used.
   */
  private replyJson(channelId: string, input: ChatMessageInput): string | null {
    const ref = input.replyTo;
    if (!ref) return null;
    const messageId = alertIdFromSnowflake(ref.messageId);
    let author = ref.author;
    let text = ref.text;
    if (author === null) {
      const parent = this.s.parent.get(messageId, channelId) as { authorJson: string | null; message: string | null } | undefined;
      if (parent) {
        author = parent.authorJson ? (JSON.parse(parent.authorJson) as { name: string }).name : null;
        text = parent.message;
      }
    }
    return JSON.stringify({ messageId, author: author ?? 'unknown', excerpt: excerpt(text) });
  }

  /**
   * Downloads a message's files into the batch. A file that cannot be stored
   * (unsupported format, too large, download failed) is skipped with a warning:
   * the message itself is still stored, without inventing anything for it.
   */
  private async download(input: ChatMessageInput, items: ChatAttachmentInput[], batch: MediaBatch): Promise<AttachmentRecord[]> {
    const skip = (item: ChatAttachmentInput, reason: string) =>
      this.d.logger.warn({ messageId: input.messageId, file: item.name, reason }, 'chat attachment skipped');
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
            const media = await this.d.fetcher.fetchInto(item.url, batch, { label: `file "${item.name}"` });
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
      else await batch.rollback(this.d.isMediaReferenced);
    } catch (err) {
      this.d.logger.warn({ err }, 'settling chat attachments failed');
    }
  }

  /** One stream wake-up per event-loop turn, however many messages a group commit stored. */
  private emitSoon(): void {
    if (this.emitScheduled) return;
    this.emitScheduled = true;
    setImmediate(() => {
      this.emitScheduled = false;
      this.d.bus.emit('alert-events');
    });
  }
}
