import type { AlertRow, ThreadHead } from '../../domain/alert-store.js';

/** How long a found head is shared: every open feed receives a reply's event within this. */
const SHARED_FOR_MS = 5_000;
const MAX_ENTRIES = 256;

export interface ThreadHeadFound {
  head: ThreadHead;
  row: AlertRow;
}

interface Sources {
  heads(channelId: string, threadIds: readonly string[]): Promise<Map<string, ThreadHead>>;
  alert(id: string): Promise<AlertRow | undefined>;
}

/**
 * The thread head (its "N replies" and its row) for a new reply, looked up once per reply for
 * every open feed: each feed receives the same `alert.created` within milliseconds, and without
 * this each one read the head and its row again. Keyed by the reply's id, so a later reply always
 * looks up afresh; what each viewer may see (their read state) is still rendered per feed.
 */
export class ThreadHeadLookups {
  private readonly pending = new Map<string, { at: number; found: Promise<ThreadHeadFound | undefined> }>();

  constructor(
    private readonly sources: Sources,
    private readonly now: () => number = () => performance.now(),
  ) {}

  find(channelId: string, threadId: string, replyId: string): Promise<ThreadHeadFound | undefined> {
    const now = this.now();
    const hit = this.pending.get(replyId);
    if (hit && now - hit.at < SHARED_FOR_MS) return hit.found;
    this.forgetOld(now);
    const found = this.lookUp(channelId, threadId, replyId);
    this.pending.set(replyId, { at: now, found });
    // A failed read is not shared: the next feed tries again.
    found.catch(() => this.pending.delete(replyId));
    return found;
  }

  private async lookUp(channelId: string, threadId: string, replyId: string): Promise<ThreadHeadFound | undefined> {
    const head = (await this.sources.heads(channelId, [threadId])).get(threadId);
    if (!head || head.headId === replyId) return undefined;
    const row = await this.sources.alert(head.headId);
    return row ? { head, row } : undefined;
  }

  private forgetOld(now: number): void {
    for (const [id, entry] of this.pending) {
      if (now - entry.at < SHARED_FOR_MS && this.pending.size < MAX_ENTRIES) break;
      this.pending.delete(id);
    }
  }
}
