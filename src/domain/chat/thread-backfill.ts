import type { ChatIngest } from './ingest.js';
import type { HistorySource } from './sync.js';
import type { ChatMessageInput, DiscordLink } from './types.js';

const DISCORD_EPOCH = 1_420_070_400_000;

/** The creation time (ms) of a Discord snowflake. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}

/**
 * Backfills the threads of a connected channel from `mark` (its sync mark):
 * the active threads and those archived since the mark's time (a thread that
 * was archived before it got no message after it: posting unarchives a thread).
 * Each thread is read page by page after the mark, oldest first; storing is
 * idempotent, so a message seen live and here is stored once. The mark itself
 * does not move here: the channel pass that runs next moves it, so a crash in
 * the middle of this leaves the whole gap to the next pass.
 */
export async function backfillThreads(
  source: HistorySource,
  ingest: ChatIngest,
  link: DiscordLink,
  mark: string,
  pageSize: number,
  keepGoing: () => boolean,
): Promise<number> {
  const threadIds = await source.threads(link.discordChannelId, snowflakeTime(mark));
  let stored = 0;
  for (const threadId of threadIds) {
    // A forum post or a thread started after the mark: its id is above the mark, so `after=mark` includes its starter.
    let after = mark;
    while (keepGoing()) {
      const page = await source.after(threadId, after, pageSize);
      if (page.fetched === 0 || page.newestId === null) break;
      await ingest.store(link, page.messages);
      await refreshReactions(ingest, link, page.messages);
      stored += page.messages.length;
      after = page.newestId;
      if (page.fetched < pageSize) break;
    }
  }
  return stored;
}

/**
 * Sets the counts of fetched messages that were stored already to those of the
 * message objects (exact, from Discord): reactions changed while the bot was
 * away are caught up for every message a backfill fetched. A new row got them on insert.
 */
export async function refreshReactions(ingest: ChatIngest, link: DiscordLink, messages: ChatMessageInput[]): Promise<void> {
  for (const m of messages) await ingest.setReactions(link, m.messageId, m.reactions ?? []);
}
