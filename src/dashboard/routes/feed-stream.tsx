import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AlertView } from '../../domain/alert-view.js';
import { AppError } from '../../domain/errors.js';
import type { ChannelView } from '../../domain/read-api.js';
import type { LiveEvent } from '../../notify/live-stream.js';
import { levelAllows } from '../../domain/notification-preferences.js';
import { isoTime } from '../../lib/iso-time.js';
import type { DashboardDeps } from '../deps.js';
import { ThreadHeadLookups } from '../feed/thread-head-lookups.js';
import type { DashEnv } from '../http/env.js';
import { isManager, requireSession } from '../http/session.js';
import { FeedEntry } from '../pages/feed-entry.js';
import { sessionPrincipal } from './feed.js';

/** An SSE message as written: the API's events, or the dashboard's `card`. */
type Outgoing = { event: string; id?: string | undefined; data: string };

const EVENT_ID = /^\d{1,15}$/;

/**
 * What the dashboard's script receives: the API stream's events, with the
 * card already rendered (the same component as the page, so a live card and a
 * reloaded one are identical) and the channel's unread count for the badges.
 * `read.updated` passes through as the API sends it.
 */
export interface DashboardCardEvent {
  type: 'alert.created' | 'alert.updated' | 'alert.deleted';
  id: string;
  channelId: string;
  isRead: boolean;
  level: string | null;
  /** The chat author's role, for the "members only" filter. */
  role: string | null;
  unread: number;
  html: string | null;
  /** A new alert that passes the user's notification level for its channel: feed-live.js shows a browser notification. */
  notify: boolean;
  /** The notification's text: the alert's title, or the chat author and message. */
  summary: string | null;
  /**
   * A new reply in a thread the feed folds under its head: the head's card with the new "N replies".
   * feed-live.js puts it in place of the head instead of adding the reply at the top (the unread-only
   * view, which lists replies one by one, adds the reply).
   */
  threadHead: { id: string; html: string } | null;
}

/**
 * GET /feed/stream: the live stream for a signed-in browser. The same engine
 * as GET /api/stream (visibility, Last-Event-ID resume, heartbeats) with the
 * session as principal; it ends when the session ends or the user leaves the
 * workspace. One tab per browser holds it (feed.js elects a leader).
 */
export function feedStreamRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { services } = deps;
  // Shared by every open feed of this app: one lookup per new reply, not one per viewer.
  const threadHeads = new ThreadHeadLookups({ heads: (ch, ids) => services.chatThreads.heads(ch, ids), alert: (id) => services.store.reads.alert(id) });
  r.use('/feed/stream', requireSession(deps));

  r.get('/feed/stream', async (c: Context<DashEnv>) => {
    const p = sessionPrincipal(c);
    const rawLast = (c.req.header('last-event-id') ?? '').trim();
    if (rawLast !== '' && !EVENT_ID.test(rawLast)) throw new AppError('invalid-query', 'Last-Event-ID must be the id of an event of this stream (a whole number)');
    const idHash = c.get('session').idHash;
    const authorized = async () => (await deps.sessions.isLive(idHash)) && (await deps.accounts.workspacesOf(p.userId)).some((w) => w.id === p.workspaceId);
    const sub = await services.live.open(p, { lastEventId: rawLast === '' ? undefined : Number(rawLast), authorized });
    const csrf = c.get('csrfToken');
    const manager = isManager(c.get('workspace')?.role);
    let channels: ChannelView[] = [];
    const channelOf = async (id: string) => {
      let ch = channels.find((x) => x.id === id);
      if (!ch) {
        channels = await services.readApi.listChannels(p);
        ch = channels.find((x) => x.id === id);
      }
      return ch;
    };
    const unreadOf = async (id: string) => {
      channels = await services.readApi.listChannels(p);
      return channels.find((x) => x.id === id)?._count.alerts ?? 0;
    };

    // The same per-channel level as e-mail (channel settings): chat messages have no level, so only "all" passes them.
    const wantsNotification = async (alert: AlertView) => {
      const pref = (await services.notifyPrefs.recipient(alert.channelId, p.userId))?.level ?? 'none';
      return 'level' in alert ? levelAllows(pref, alert.level) : pref === 'all';
    };

    // A new reply in a thread the feed folds: the head's card with its new "N replies", as a reload shows it.
    const threadHeadOf = async (alert: AlertView): Promise<{ alert: AlertView; html: string } | undefined> => {
      const threadId = 'thread' in alert ? alert.thread?.id : undefined;
      if (!threadId) return undefined;
      const found = await threadHeads.find(alert.channelId, threadId, alert.id);
      const channel = await channelOf(alert.channelId);
      if (!found || !channel) return undefined;
      const { head, row } = found;
      const [view] = await services.readApi.render(p.userId, alert.channelId, [row]);
      if (!view) return undefined;
      const fold = { threadId, replies: head.messageCount - 1, lastReplyAt: isoTime(head.lastMessageAt) };
      return { alert: view, html: String(<FeedEntry alert={view} channel={channel} csrfToken={csrf} manager={manager} fold={fold} />) };
    };

    const toCardEvent = async (ev: LiveEvent): Promise<Outgoing | null> => {
      if (ev.event === 'resync' || ev.event === 'read.updated' || ev.event === 'shutdown') return ev;
      const type = ev.event;
      if (type === 'alert.deleted') {
        const d = JSON.parse(ev.data) as { id: string; channelId: string };
        const out: DashboardCardEvent = {
          type,
          id: d.id,
          channelId: d.channelId,
          isRead: true,
          level: null,
          role: null,
          unread: await unreadOf(d.channelId),
          html: null,
          notify: false,
          summary: null,
          threadHead: null,
        };
        return { event: 'card', id: ev.id, data: JSON.stringify(out) };
      }
      const alert = JSON.parse(ev.data) as AlertView;
      const channel = await channelOf(alert.channelId);
      if (!channel) return null;
      const head = type === 'alert.created' ? await threadHeadOf(alert) : undefined;
      const html = String(<FeedEntry alert={alert} channel={channel} csrfToken={csrf} manager={manager} />);
      const out: DashboardCardEvent = {
        type,
        id: alert.id,
        channelId: alert.channelId,
        isRead: alert.isRead,
        level: 'level' in alert ? alert.level : null,
        role: 'author' in alert ? alert.author.role : null,
        unread: await unreadOf(alert.channelId),
        html,
        notify: type === 'alert.created' && (await wantsNotification(alert)),
        summary: 'title' in alert ? alert.title : `${alert.author.name}: ${(alert.message ?? '').slice(0, 140)}`,
        threadHead: head ? { id: head.alert.id, html: head.html } : null,
      };
      return { event: 'card', id: ev.id, data: JSON.stringify(out) };
    };

    c.header('X-Accel-Buffering', 'no');
    c.header('Cache-Control', 'no-store');
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => sub.close());
      const heartbeat = setInterval(() => void stream.write(': heartbeat\n\n'), services.live.options.heartbeatMs);
      try {
        await stream.write(`retry: ${services.live.options.retryMs}\n\n`);
        for await (const ev of sub) {
          if (stream.aborted) break;
          const out = await toCardEvent(ev);
          if (out) await stream.writeSSE(out);
        }
      } finally {
        clearInterval(heartbeat);
        sub.close();
      }
    });
  });
  return r;
}
