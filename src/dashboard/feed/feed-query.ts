import type { AlertLevel, AlertReads, AlertRow, PageQuery, ThreadHead } from '../../domain/alert-store.js';
import { isoTime } from '../../lib/iso-time.js';
import type { AlertView } from '../../domain/alert-view.js';
import type { AlertStatus } from '../../domain/alert-lifecycle.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { Principal } from '../../domain/tokens.js';
import type { DashboardServices } from '../dashboard-services.js';

/** A thread folded under its head message: how many replies it hides, and when the last one came. */
export interface ThreadFold {
  threadId: string;
  replies: number;
  lastReplyAt: string;
}

/** One feed page: newest first, and the cursor for the next older page. */
export interface FeedPage {
  items: { alert: AlertView; channel: ChannelView; fold?: ThreadFold }[];
  nextCursor: string | null;
}

export interface FeedFilter {
  /** One channel (already resolved through the visibility rule), or every visible channel. */
  channels: ChannelView[];
  level?: AlertLevel | undefined;
  /** Only these statuses (undefined: all). */
  status?: readonly AlertStatus[] | undefined;
  unreadOnly: boolean;
  /** Chat channels: only messages of members (the real user feedback), not the team's or bots'. */
  membersOnly?: boolean;
  /** Strictly older than this alert id. */
  cursor?: string | undefined;
  limit: number;
}

/** How many rows an unread-only page scans at most before it answers (short) with a cursor: bounds the cost of a mostly-read feed. */
const UNREAD_SCAN_ROWS = 400;

/**
 * The dashboard's feed over the read API's use cases: a single channel is the
 * API's own page; "All channels" merges each visible channel's newest page by
 * alert id (ids sort by creation time), so the cursor means the same in both.
 * Unread-only on its own reads only unread rows (unreadFeedPage). Members-only, and
 * unread-only with a level or status filter, filter the rendered rows, scanning a bounded
 * number of rows: a page may come back short with a cursor, which the "Load older"
 * button simply follows.
 */
export async function feedPage(services: Pick<DashboardServices, 'store' | 'readApi' | 'chatThreads'>, p: Principal, f: FeedFilter): Promise<FeedPage> {
  if (f.unreadOnly && !f.membersOnly && !f.level && !f.status) return unreadFeedPage(services, p, f);
  const reads = services.store.reads;
  const byId = new Map(f.channels.map((c) => [c.id, c]));
  const items: FeedPage['items'] = [];
  let cursor = f.cursor;
  let scanned = 0;
  for (;;) {
    const filtered = f.unreadOnly || f.membersOnly;
    const batch = filtered ? Math.max(f.limit, 50) : f.limit;
    // The level filter does not apply to chat channels (their messages have no level), as in the API.
    const channels = f.level ? f.channels.filter((c) => !c.chat) : f.channels;
    const rows = await newestAcross(reads, channels.map((c) => c.id), f.level, cursor, batch + 1, f.status);
    const taken = rows.slice(0, batch);
    const more = rows.length > batch;
    // Rendered per channel: the read state and attachments are two queries per channel.
    const views = new Map<string, AlertView>();
    const perChannel = new Map<string, typeof taken>();
    for (const r of taken) perChannel.set(r.channelId, [...(perChannel.get(r.channelId) ?? []), r]);
    for (const [channelId, list] of perChannel) {
      for (const v of await services.readApi.render(p.userId, channelId, list)) views.set(v.id, v);
    }
    const heads = await threadHeadsOf(services, taken);
    for (const r of taken) {
      const v = views.get(r.id)!;
      if (f.unreadOnly && v.isRead) continue;
      if (f.membersOnly && !('author' in v && v.author.role === 'member')) continue;
      // A thread shows once, as its head message with "N replies"; its other messages open from there.
      const head = r.threadId ? heads.get(`${r.channelId} ${r.threadId}`) : undefined;
      if (head && head.headId !== r.id) continue;
      const fold = head && head.messageCount > 1 ? { threadId: head.threadId, replies: head.messageCount - 1, lastReplyAt: isoTime(head.lastMessageAt) } : undefined;
      if (items.length < f.limit) items.push({ alert: v, channel: byId.get(r.channelId)!, ...(fold ? { fold } : {}) });
    }
    scanned += taken.length;
    const last = taken[taken.length - 1];
    if (items.length >= f.limit) {
      // Stopped mid-batch: the next page starts after the last card shown.
      const lastShown = items[items.length - 1]!.alert.id;
      const hasOlder = more || taken[taken.length - 1]!.id !== lastShown;
      return { items, nextCursor: hasOlder ? lastShown : null };
    }
    if (!more || !last) return { items, nextCursor: null };
    cursor = last.id;
    if (scanned >= UNREAD_SCAN_ROWS) return { items, nextCursor: cursor };
  }
}

/** The heads of the threads a batch's chat messages are in, keyed `channel thread`: one query per channel with threads. */
async function threadHeadsOf(services: Pick<DashboardServices, 'chatThreads'>, rows: AlertRow[]): Promise<Map<string, ThreadHead>> {
  const byChannel = new Map<string, string[]>();
  for (const r of rows) if (r.threadId) byChannel.set(r.channelId, [...(byChannel.get(r.channelId) ?? []), r.threadId]);
  const out = new Map<string, ThreadHead>();
  for (const [channelId, threadIds] of byChannel) {
    for (const [threadId, head] of await services.chatThreads.heads(channelId, threadIds)) out.set(`${channelId} ${threadId}`, head);
  }
  return out;
}

/**
 * Unread only, without other filters: each channel's unread rows come from the store by index
 * (AlertReads.unreadPage), merged by id as `newestAcross` merges pages, so a page costs the same
 * whether the user is 10 or 10 million alerts behind, and is never short while older unread remain.
 */
async function unreadFeedPage(services: Pick<DashboardServices, 'store' | 'readApi'>, p: Principal, f: FeedFilter): Promise<FeedPage> {
  const reads = services.store.reads;
  const unread = { page: (q: PageQuery) => reads.unreadPage(p.userId, q) };
  const rows = await newestAcross(unread, f.channels.map((c) => c.id), undefined, f.cursor, f.limit + 1);
  const taken = rows.slice(0, f.limit);
  const byId = new Map(f.channels.map((c) => [c.id, c]));
  const perChannel = new Map<string, AlertRow[]>();
  for (const r of taken) perChannel.set(r.channelId, [...(perChannel.get(r.channelId) ?? []), r]);
  const views = new Map<string, AlertView>();
  for (const [channelId, list] of perChannel) {
    for (const v of await services.readApi.render(p.userId, channelId, list)) views.set(v.id, v);
  }
  const items = taken.map((r) => ({ alert: views.get(r.id)!, channel: byId.get(r.channelId)! }));
  return { items, nextCursor: rows.length > f.limit ? taken[taken.length - 1]!.id : null };
}

const newestFirst = (a: AlertRow, b: AlertRow) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The `want` newest rows across channels (older than `cursor`), merged by id.
 * Each channel is first asked for its share and a little more; a channel is
 * asked again only while its next row could still be newer than the cut (its
 * oldest fetched row is above the want-th newest overall). On a feed whose
 * channels interleave, one round reads about `want` rows plus two per channel,
 * instead of `want` rows from every channel.
 */
export async function newestAcross(
  reads: Pick<AlertReads, 'page'>,
  channelIds: string[],
  level: AlertLevel | undefined,
  cursor: string | undefined,
  want: number,
  status?: readonly AlertStatus[],
): Promise<AlertRow[]> {
  if (channelIds.length === 0) return [];
  const share = channelIds.length === 1 ? want : Math.ceil(want / channelIds.length) + 2;
  const state = channelIds.map((channelId) => ({ channelId, rows: [] as AlertRow[], cursor, done: false, ask: share }));
  let pending = state;
  for (;;) {
    await Promise.all(
      pending.map(async (ch) => {
        const got = await reads.page({ channelId: ch.channelId, level, status, cursor: ch.cursor, limit: ch.ask });
        ch.rows.push(...got);
        ch.done = got.length < ch.ask;
        if (got.length) ch.cursor = got[got.length - 1]!.id;
        ch.ask = Math.min(want, ch.ask * 2);
      }),
    );
    const merged = state.flatMap((ch) => ch.rows).sort(newestFirst);
    const cut = merged.length >= want ? merged[want - 1]!.id : null;
    pending = state.filter((ch) => !ch.done && (cut === null || ch.cursor! > cut));
    if (pending.length === 0) return merged.slice(0, want);
  }
}
