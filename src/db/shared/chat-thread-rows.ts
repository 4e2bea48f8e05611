import type { AlertRow, ThreadHead } from '../../domain/alert-store.js';
import { ALERT_SELECT } from './alert-columns.js';
import { byDialect, statement } from './statement.js';

// Discord threads and forum posts (`chat_threads`) and the reaction summary of chat messages, for both engines.

/** Records a thread while its channel is still linked; a later event overwrites the name, tags and archived flag. */
export const SAVE_THREAD = statement<{
  channelId: string; discordChannelId: string; threadId: string; name: string; tagsJson: string; archived: boolean; now: number;
}>(
  `INSERT INTO chat_threads (channel_id, thread_id, name, tags_json, archived, created_at, updated_at)
   SELECT :channelId, :threadId, :name, :tagsJson, :archived, :now, :now
   WHERE EXISTS (SELECT 1 FROM discord_links WHERE channel_id = :channelId AND discord_channel_id = :discordChannelId)
   ON CONFLICT (channel_id, thread_id) DO UPDATE SET name = excluded.name, tags_json = excluded.tags_json,
     archived = excluded.archived, updated_at = excluded.updated_at`,
);

/** Rewrites the thread copies of its messages and of its starter message (same id as the thread), returning those that changed. */
export const THREAD_COPIES = statement<{ channelId: string; threadId: string; starterId: string; threadJson: string; tagsJson: string }, { id: string }>(
  `UPDATE alerts SET thread_id = :threadId, thread_json = :threadJson, tags_json = :tagsJson
   WHERE channel_id = :channelId AND kind = 'chat' AND (thread_id = :threadId OR id = :starterId)
     AND (thread_id IS NULL OR thread_json IS DISTINCT FROM :threadJson OR tags_json IS DISTINCT FROM :tagsJson)
   RETURNING id`,
);

/** A message's reaction summary; locked on PostgreSQL, so two reaction events on one message apply one after the other. */
export const REACTIONS_OF = byDialect<{ alertId: string; channelId: string }, { reactionsJson: string | null }>(
  (dialect) => `SELECT reactions_json AS "reactionsJson" FROM alerts WHERE id = :alertId AND channel_id = :channelId AND kind = 'chat'
   ${dialect.engine === 'postgres' ? 'FOR UPDATE' : ''}`,
);

export const SET_REACTIONS = statement<{ alertId: string; channelId: string; json: string | null; count: number }>(
  `UPDATE alerts SET reactions_json = :json, reaction_count = :count WHERE id = :alertId AND channel_id = :channelId AND kind = 'chat'`,
);

/** A thread as the threads endpoint lists it, before its JSON columns are parsed. */
export interface ThreadListRow {
  id: string;
  name: string;
  tagsJson: string;
  starterAlertId: string | null;
  messageCount: number;
  lastMessageAt: number | null;
  reactionCount: number;
  sortKey: number;
}

export type ThreadSort = 'activity' | 'reactions';
type ThreadPageParams = { channelId: string; limit: number; cursorKey: number | null; cursorId: string | null; tag: string | null };

/**
 * A page of a channel's threads, newest activity (or most reactions on the starter message) first,
 * keyset-paged on (sort key, thread id). The starter is the message whose id is the thread's
 * (`external_id` = thread id). The counts come from the messages (the thread index).
 */
function threadPage(sort: ThreadSort, byTag: boolean) {
  return byDialect<ThreadPageParams, ThreadListRow>((dialect) => {
    const tagged = dialect.engine === 'postgres' ? 'jsonb_exists(t.tags_json::jsonb, :tag)' : 'EXISTS (SELECT 1 FROM json_each(t.tags_json) WHERE value = :tag)';
    const inner = `SELECT t.thread_id AS id, t.name AS name, t.tags_json AS "tagsJson", s.id AS "starterAlertId",
        COALESCE(s.reaction_count, 0) AS "reactionCount",
        (SELECT count(*) FROM alerts m WHERE m.channel_id = t.channel_id AND m.thread_id = t.thread_id) AS "messageCount",
        (SELECT max(m.created_at) FROM alerts m WHERE m.channel_id = t.channel_id AND m.thread_id = t.thread_id) AS "lastMessageAt",
        t.created_at AS "createdAt"
      FROM chat_threads t
      LEFT JOIN alerts s ON s.channel_id = t.channel_id AND s.external_id = t.thread_id AND s.kind = 'chat'
      WHERE t.channel_id = :channelId${byTag ? ` AND ${tagged}` : ''}`;
    const key = sort === 'reactions' ? 'x."reactionCount"' : 'COALESCE(x."lastMessageAt", x."createdAt")';
    return `SELECT x.id, x.name, x."tagsJson", x."starterAlertId", x."reactionCount", x."messageCount", x."lastMessageAt", ${key} AS "sortKey"
      FROM (${inner}) x
      WHERE CAST(:cursorKey AS BIGINT) IS NULL OR ${key} < CAST(:cursorKey AS BIGINT) OR (${key} = CAST(:cursorKey AS BIGINT) AND x.id < CAST(:cursorId AS TEXT))
      ORDER BY ${key} DESC, x.id DESC
      LIMIT :limit`;
  });
}

export const THREAD_PAGES = {
  activity: { all: threadPage('activity', false), tagged: threadPage('activity', true) },
  reactions: { all: threadPage('reactions', false), tagged: threadPage('reactions', true) },
} as const;

/**
 * Where each thread shows in a channel's feed: its earliest stored message (the starter when it is
 * stored, as it has the thread's id, which is older than any reply), its message count and last time.
 * One range of the (channel_id, thread_id, id) index per thread.
 */
export const THREAD_HEADS = byDialect<{ channelId: string; threadIds: readonly string[] }, ThreadHead>(
  (dialect) => `SELECT thread_id AS "threadId", min(id) AS "headId", count(*) AS "messageCount", max(created_at) AS "lastMessageAt"
   FROM alerts WHERE channel_id = :channelId AND thread_id IN ${dialect.listOf('threadIds', 'text')} GROUP BY thread_id`,
);

/** A thread's messages, oldest first (the feed's expanded thread). */
export const THREAD_MESSAGES = statement<{ channelId: string; threadId: string; after: string; limit: number }, AlertRow>(
  `SELECT ${ALERT_SELECT} FROM alerts a WHERE a.channel_id = :channelId AND a.thread_id = :threadId AND a.id > :after ORDER BY a.id LIMIT :limit`,
);
