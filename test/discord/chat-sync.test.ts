import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ChatIngest } from '../../src/domain/chat/ingest.js';
import { ChatSync, type HistoryPage, type HistorySource } from '../../src/domain/chat/sync.js';
import type { ChatMessageInput } from '../../src/domain/chat/types.js';
import { createLogger } from '../../src/lib/logger.js';
import { createEngineHarness, describeEngines, type Harness, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

/**
 * ChatSync without discord.js: a scripted history source whose answers the
 * test releases, to hit the races between live events and a running backfill,
 * over the real services on either engine.
 */

const DISCORD_CHANNEL = '1300000000000000000';
const id = (n: number) => String(1300000000000000000n + BigInt(n) * 4194304n);

function msg(n: number, text = `m${n}`): ChatMessageInput {
  return {
    messageId: id(n),
    createdAt: Date.UTC(2025, 0, 1) + n * 1000,
    editedAt: null,
    text,
    author: { id: '1200000000000000000', name: 'Alice', bot: false, role: 'member' },
    replyTo: null,
    attachments: [],
  };
}

class ScriptedHistory implements HistorySource {
  calls: { after: string | null; release(page: ChatMessageInput[]): void }[] = [];
  private waiters: (() => void)[] = [];

  after(_ch: string, after: string, _limit: number): Promise<HistoryPage> {
    return this.request(after);
  }
  latest(): Promise<HistoryPage> {
    return this.request(null);
  }
  threads(): Promise<string[]> {
    return Promise.resolve([]);
  }
  /** Resolves once the n-th request (1-based) was made. */
  async requested(n: number): Promise<void> {
    while (this.calls.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
  private request(after: string | null): Promise<HistoryPage> {
    return new Promise((resolve) => {
      this.calls.push({
        after,
        release: (page) => resolve({ messages: page, newestId: page.at(-1)?.messageId ?? null, fetched: page.length }),
      });
      for (const w of this.waiters.splice(0)) w();
    });
  }
}

/**
 * Resolves with what the next call of `ingest[method]` settled with (so the race
 * is staged for real). The spy only watches: the real method runs.
 */
async function settledCall(ingest: ChatIngest, method: 'remove' | 'edit'): Promise<unknown> {
  const spy = vi.spyOn(ingest, method);
  try {
    // The entry is there from the call on, `incomplete` until its promise settles.
    const settled = () => {
      const first = spy.mock.settledResults[0];
      return first?.type === 'incomplete' ? undefined : first;
    };
    return (await eventually(settled, `the first ${method} call to settle`)).value;
  } finally {
    spy.mockRestore();
  }
}

describeEngines('ChatSync races with a running backfill', (engine) => {
  let h: Harness;
  let sync: ChatSync;
  let history: ScriptedHistory;
  let channelId: string;
  let ingest: ChatIngest;

  const rows = () => h.query<{ e: string; m: string | null }>('SELECT external_id AS e, message AS m FROM alerts WHERE channel_id = ? ORDER BY id', [channelId]);
  const mark = async () => (await h.query<{ s: string | null }>('SELECT synced_until AS s FROM discord_links'))[0]!.s;

  beforeEach(async () => {
    h = await createEngineHarness(engine, { reuseDatabase: true });
    const s = h.services;
    const ws = await seedWorkspace(s);
    channelId = ws.general.id;
    const links = s.discordLinks;
    await links.connect(channelId, DISCORD_CHANNEL);
    await h.query('UPDATE discord_links SET synced_until = ?', [id(0)]);
    history = new ScriptedHistory();
    const logger = createLogger('silent');
    ingest = s.chatIngest;
    sync = new ChatSync(ingest, links, history, s.clock, logger, { pageSize: 2 });
    await sync.refresh();
  });

  afterEach(async () => {
    await sync?.stop();
    await h?.close();
  });

  it('a delete of a message the running page still holds is applied after the page', async () => {
    sync.gatewayUp();
    await history.requested(1);
    expect(history.calls[0]!.after).toBe(id(0));
    // Deleted on Discord after the page was fetched, before it is stored.
    const firstTry = settledCall(ingest, 'remove');
    const deleting = sync.remove(DISCORD_CHANNEL, [id(1)]);
    expect(await firstTry).toBe(0); // nothing to delete yet
    history.calls[0]!.release([msg(1), msg(2)]);
    await history.requested(2);
    history.calls[1]!.release([]);
    await deleting;
    await sync.idle();
    expect((await rows()).map((r) => r.m)).toEqual(['m2']);
    expect(await mark()).toBe(id(2));
  });

  it('an edit of a message the running page still holds is applied after the page', async () => {
    sync.gatewayUp();
    await history.requested(1);
    const firstTry = settledCall(ingest, 'edit');
    const editing = sync.edit(DISCORD_CHANNEL, { ...msg(1, 'm1 edited'), editedAt: Date.UTC(2025, 0, 2) });
    expect(await firstTry).toBe('missing');
    history.calls[0]!.release([msg(1)]);
    await editing;
    await sync.idle();
    expect((await rows()).map((r) => r.m)).toEqual(['m1 edited']);
  });

  it('pages until a short page; live messages during the pass count only after it', async () => {
    sync.gatewayUp();
    await history.requested(1);
    await sync.live(DISCORD_CHANNEL, msg(5));
    expect(await mark()).toBe(id(0));
    history.calls[0]!.release([msg(1), msg(2)]); // full page (pageSize 2): ask again
    await history.requested(2);
    expect(history.calls[1]!.after).toBe(id(2));
    expect(await mark()).toBe(id(2));
    history.calls[1]!.release([msg(3)]);
    await sync.idle();
    // m4 was never seen by anyone: the stream delivered m5 after the pass's requests,
    // so with the real gateway m4 would be in the page; here the mark honours the live stream.
    expect((await rows()).map((r) => r.m)).toEqual(['m1', 'm2', 'm3', 'm5']);
    expect(await mark()).toBe(id(5));
    expect(sync.stateOf(DISCORD_CHANNEL)!.isLive).toBe(true);

    // A gap (reconnect) stops live messages from moving the mark until the next pass completes.
    sync.gatewayDown();
    await sync.live(DISCORD_CHANNEL, msg(7));
    expect(await mark()).toBe(id(5));
  });
});
