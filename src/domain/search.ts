import type { AlertLevel, AlertReads, AlertSearch, AlertRow, SearchHighlights } from './alert-store.js';
import type { AlertView } from './alert-view.js';
import { AppError, type ValidationIssue } from './errors.js';
import type { ReadApi } from './read-api.js';
import { parseSearchQuery } from './search-query.js';
import { parseStatusFilter } from './alert-lifecycle.js';
import type { Principal } from './tokens.js';

export interface SearchInput {
  q: string;
  /** Channel id or slug; omitted: every channel the principal can see. */
  channel?: string;
  level?: AlertLevel;
  /** Comma-separated statuses (checked here). */
  status?: string;
  /** Only messages of this Discord thread (its `thread.id`). */
  thread?: string;
  /** Only messages of forum posts with this tag (by name). */
  tag?: string;
  /** The previous page's nextCursor. */
  cursor?: string;
  limit: number;
}

export interface SearchPage {
  alerts: AlertView[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** A search cursor is a search key in decimal: opaque to clients, checked here so a bad one is a 400, not an empty page. */
const CURSOR = /^[1-9][0-9]{0,15}$/;

function invalidQuery(param: string, message: string): AppError {
  const issue: ValidationIssue = { code: 'invalid_value', message, path: [param] };
  return new AppError('invalid-query', message, { details: [issue] });
}

/**
 * Full-text search across the channels a principal can see (README "Search"):
 * the same visibility rule and alert shapes as the channel list, newest first
 * with a cursor. `highlights` is the dashboard's companion: where the words
 * were found in alerts a search returned.
 */
export class SearchAlerts {
  constructor(
    private readonly index: AlertSearch,
    private readonly reads: Pick<AlertReads, 'visibleChannelIds'>,
    private readonly readApi: Pick<ReadApi, 'resolveChannel' | 'render'>,
  ) {}

  async search(p: Principal, input: SearchInput): Promise<SearchPage> {
    return (await this.searchIn(p, input)).page;
  }

  /**
   * A page with the highlights of its alerts (the dashboard's search page): as search() then
   * highlights(), with the channels the principal can see read once for both.
   */
  async searchHighlighted(p: Principal, input: SearchInput): Promise<SearchPage & { highlights: SearchHighlights[] }> {
    const { page, terms, channelIds } = await this.searchIn(p, input);
    const highlights = await this.index.highlights(terms, page.alerts.map((a) => a.id), channelIds);
    return { ...page, highlights };
  }

  private async searchIn(p: Principal, input: SearchInput) {
    const terms = parseSearchQuery(input.q);
    if (input.cursor !== undefined && !CURSOR.test(input.cursor)) {
      throw invalidQuery('cursor', 'cursor must be the nextCursor of the previous page');
    }
    const status = input.status === undefined ? undefined : parseStatusFilter(input.status);
    const channelIds = await this.channelIds(p, input.channel, input.level);
    const hits = await this.index.search({
      terms,
      channelIds,
      level: input.level,
      status,
      threadId: input.thread,
      tag: input.tag,
      before: input.cursor === undefined ? undefined : Number(input.cursor),
      limit: input.limit + 1,
    });
    const hasMore = hits.length > input.limit;
    const page = hasMore ? hits.slice(0, input.limit) : hits;
    const alerts = await this.render(p.userId, page);
    return { page: { alerts, nextCursor: hasMore ? String(page[page.length - 1]!.searchKey) : null, hasMore }, terms, channelIds };
  }

  private async channelIds(p: Principal, ref: string | undefined, level: AlertLevel | undefined): Promise<string[]> {
    if (ref === undefined) return this.reads.visibleChannelIds(p);
    const channel = await this.readApi.resolveChannel(p, ref);
    // As in the channel list: a chat-connected channel's messages have no level.
    if (level && channel.discord) throw invalidQuery('level', 'the level filter does not apply to a chat-connected channel: its messages have no level');
    return [channel.id];
  }

  /** In hit order; read state and attachments are looked up per channel (a page spans channels). */
  private async render(userId: string, rows: AlertRow[]): Promise<AlertView[]> {
    const byChannel = new Map<string, AlertRow[]>();
    for (const r of rows) {
      const list = byChannel.get(r.channelId);
      if (list) list.push(r);
      else byChannel.set(r.channelId, [r]);
    }
    const views = new Map<string, AlertView>();
    for (const [channelId, list] of byChannel) {
      const rendered = await this.readApi.render(userId, channelId, list.map(stripKey));
      rendered.forEach((v) => views.set(v.id, v));
    }
    return rows.map((r) => views.get(r.id)!);
  }
}

function stripKey(hit: AlertRow & { searchKey?: number }): AlertRow {
  const { searchKey: _key, ...row } = hit;
  return row;
}
