import type { Clock } from '../lib/clock.js';
import { parseStatusFilter, type AlertStatus } from './alert-lifecycle.js';

/** Storage of the feed's remembered filters (src/db/shared/feed-preference-rows.ts). */
export interface FeedPreferenceRows {
  statusFilter(userId: string): Promise<string | undefined>;
  setStatusFilter(userId: string, filter: string, now: number): Promise<void>;
}

/** `all` (every status: the feed as it always was), or the statuses shown. */
export type StatusFilter = 'all' | readonly AlertStatus[];

/** The filter as stored and as the feed's query parameter: `all`, or `open,acknowledged`. */
export const statusFilterText = (f: StatusFilter) => (f === 'all' ? 'all' : f.join(','));

/** Parses `all` or a status list; throws a 400 naming `status` for anything else. */
export function parseFeedStatus(text: string): StatusFilter {
  return text === 'all' ? 'all' : parseStatusFilter(text);
}

/**
 * The feed's status filter, remembered per user: a person who chose "open and acknowledged" finds
 * it again on their next visit, on any device. Nobody chose: every status, the feed as before.
 */
export class FeedPreferences {
  constructor(
    private readonly rows: FeedPreferenceRows,
    private readonly clock: Clock,
  ) {}

  async statusFilter(userId: string): Promise<StatusFilter> {
    const stored = await this.rows.statusFilter(userId);
    if (stored === undefined) return 'all';
    try {
      return parseFeedStatus(stored);
    } catch {
      return 'all';
    }
  }

  async rememberStatusFilter(userId: string, filter: StatusFilter): Promise<void> {
    await this.rows.setStatusFilter(userId, statusFilterText(filter), this.clock.now());
  }
}
