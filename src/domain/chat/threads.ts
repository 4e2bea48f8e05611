import type { AlertRow, ChatMessageWrites, ThreadHead, ThreadRow } from '../alert-store.js';
import { AppError, notFound } from '../errors.js';
import type { ReadApi } from '../read-api.js';
import type { Principal } from '../tokens.js';
import { isoTime } from '../../lib/iso-time.js';

export interface ThreadListQuery {
  cursor?: string;
  limit: number;
  sort: 'activity' | 'reactions';
  tag?: string;
}

/** A thread or forum post as `GET /api/channels/{channel}/threads` shows it. */
export interface ThreadView {
  id: string;
  name: string;
  tags: string[];
  starterAlertId: string | null;
  messageCount: number;
  lastMessageAt: string | null;
  reactionCount: number;
}

/** `<sort key>.<thread id>`: the last thread of the previous page. */
const CURSOR = /^(\d{1,16})\.(\d{17,20})$/;

/**
 * Reading a community: the threads and forum posts of a chat-connected channel, with the same
 * visibility as the channel (a channel the caller cannot see is a 404, as if it did not exist).
 */
export class ChatThreads {
  constructor(
    private readonly readApi: Pick<ReadApi, 'resolveChannel'>,
    private readonly rows: Pick<ChatMessageWrites, 'threadPage' | 'threadHeads' | 'threadMessages'>,
  ) {}

  /** Where the threads show in a channel the caller already sees (the feed's page): head message, count, last time, by thread id. */
  async heads(channelId: string, threadIds: readonly string[]): Promise<Map<string, ThreadHead>> {
    const rows = await this.rows.threadHeads(channelId, [...new Set(threadIds)]);
    return new Map(rows.map((r) => [r.threadId, r]));
  }

  /**
   * One thread's messages, oldest first, in a channel the caller may see (else a 404, as for the
   * channel); `after` (an alert id of the thread, the last one of the previous page) pages on.
   */
  async messages(p: Principal, ref: string, threadId: string, limit: number, after?: string): Promise<{ channelId: string; rows: AlertRow[]; hasMore: boolean }> {
    const channel = await this.readApi.resolveChannel(p, ref);
    if (!/^\d{17,20}$/.test(threadId)) throw notFound('thread');
    if (after !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(after)) {
      throw new AppError('invalid-query', 'after must be the id of a message in the thread', { details: [{ code: 'invalid_format', message: 'after is not an alert id', path: ['after'] }] });
    }
    const rows = await this.rows.threadMessages(channel.id, threadId, limit + 1, after);
    // Past the thread's last message the page is empty; an unknown thread is a 404.
    if (rows.length === 0 && (after === undefined || (await this.rows.threadMessages(channel.id, threadId, 1)).length === 0)) throw notFound('thread');
    return { channelId: channel.id, rows: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  async list(p: Principal, ref: string, q: ThreadListQuery): Promise<{ threads: ThreadView[]; nextCursor: string | null; hasMore: boolean }> {
    const channel = await this.readApi.resolveChannel(p, ref);
    let cursor: { key: number; id: string } | null = null;
    if (q.cursor !== undefined) {
      const m = CURSOR.exec(q.cursor);
      if (!m) throw new AppError('invalid-query', 'cursor must be the nextCursor of the previous page', { details: [{ code: 'invalid_format', message: 'cursor is not a threads cursor', path: ['cursor'] }] });
      cursor = { key: Number(m[1]), id: m[2]! };
    }
    const rows = await this.rows.threadPage(channel.id, { sort: q.sort, tag: q.tag ?? null, cursor, limit: q.limit + 1 });
    const hasMore = rows.length > q.limit;
    const page = hasMore ? rows.slice(0, q.limit) : rows;
    const last = page.at(-1);
    return { threads: page.map(view), nextCursor: hasMore && last ? `${last.sortKey}.${last.id}` : null, hasMore };
  }
}

function view(r: ThreadRow): ThreadView {
  return {
    id: r.id,
    name: r.name,
    tags: r.tags,
    starterAlertId: r.starterAlertId,
    messageCount: r.messageCount,
    lastMessageAt: r.lastMessageAt === null ? null : isoTime(r.lastMessageAt),
    reactionCount: r.reactionCount,
  };
}
