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
