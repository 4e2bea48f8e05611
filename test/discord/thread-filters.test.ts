import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { describeEngines } from '../helpers/harness.js';
import { callTool, httpClient } from '../mcp/helpers.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';

interface Page {
  alerts: Array<{ id: string; message: string | null; thread: { id: string; name: string } | null; tags: string[] }>;
  nextCursor: string | null;
  hasMore: boolean;
}

const UNKNOWN_THREAD = '99999999999999999';

describeEngines("a thread's messages in the alert list and in search", (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /**
   * Channel `requests` fed by a forum: "Dark mode" (tag ui) with four replies "same here N", then
   * "CSV export" (tag api) with none; every message a second after the previous one.
   */
  async function forum() {
    const e = (env = await BridgeEnv.create({ engine }));
    const { fake, seed } = e;
    const forumChannel = fake.community.addForumChannel(seed.guild.id, { name: 'feature-requests', tags: ['ui', 'api'] });
    const ch = await e.h.services.accounts.createChannel({ workspaceId: e.ws.ws.id, name: 'Requests', slug: 'requests', icon: '💡' });
    await e.links().connect(ch.id, forumChannel.id);
    await e.bridge!.sync.tick();
    await e.caughtUp(forumChannel.id);
    fake.advanceTime(1_000);
    const dark = fake.community.addForumPost(forumChannel.id, { title: 'Dark mode', authorId: seed.alice.id, content: 'please add it', tags: ['ui'] });
    for (let n = 1; n <= 4; n++) {
      fake.advanceTime(1_000);
      e.send({ channelId: dark.thread.id, authorId: seed.bob.id, content: `same here ${n}` });
    }
    fake.advanceTime(1_000);
    const csv = fake.community.addForumPost(forumChannel.id, { title: 'CSV export', authorId: seed.alice.id, content: 'please add it', tags: ['api'] });
    await eventually(async () => (await page(e, '')).alerts.length === 6, 'six messages stored');
    return { e, dark, csv };
  }

  async function call(e: BridgeEnv, path: string) {
    return e.h.call('GET', path, { token: e.ws.ownerToken });
  }

  async function page(e: BridgeEnv, query: string, slug = 'requests'): Promise<Page> {
    const res = await call(e, `/api/channels/${slug}/alerts?${query}`);
    expect(res.status, query).toBe(200);
    return (await res.json()) as Page;
  }

  async function search(e: BridgeEnv, query: string): Promise<Page> {
    const res = await call(e, `/api/search?${query}`);
    expect(res.status, query).toBe(200);
    return (await res.json()) as Page;
  }

  /** Search answers in insertion order, which the bridge's batches may not keep across a thread: compare as sets. */
  async function found(e: BridgeEnv, query: string): Promise<string[]> {
    return (await search(e, query)).alerts.map((a) => a.id).sort();
  }

  /** Every page of a list, following nextCursor. */
  async function walk(e: BridgeEnv, query: string): Promise<Page['alerts']> {
    const all: Page['alerts'] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const p = await page(e, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...p.alerts);
      expect(p.hasMore).toBe(p.nextCursor !== null);
      if (!p.hasMore) return all;
      cursor = p.nextCursor;
    }
    throw new Error('more than ten pages');
  }

  it("thread= lists one thread's messages; order=asc reads them oldest first; the cursor pages in either order", async () => {
    const { e, dark, csv } = await forum();
    const starter = alertIdFromSnowflake(dark.starter.id);
    const asWritten = ['please add it', 'same here 1', 'same here 2', 'same here 3', 'same here 4'];

    const newest = await page(e, `thread=${dark.thread.id}`);
    expect(newest.alerts.map((a) => a.message)).toEqual([...asWritten].reverse());
    expect(newest.alerts.every((a) => a.thread?.id === dark.thread.id && a.thread.name === 'Dark mode')).toBe(true);
    expect(newest).toMatchObject({ nextCursor: null, hasMore: false });

    const oldest = await page(e, `thread=${dark.thread.id}&order=asc`);
    expect(oldest.alerts.map((a) => a.message)).toEqual(asWritten);
    expect(oldest.alerts[0]!.id).toBe(starter);

    // Pages of two: 2 + 2 + 1, in the order asked, nothing twice or missed.
    const first = await page(e, `thread=${dark.thread.id}&order=asc&limit=2`);
    expect(first.alerts.map((a) => a.message)).toEqual(asWritten.slice(0, 2));
    expect(first).toMatchObject({ hasMore: true, nextCursor: first.alerts[1]!.id });
    expect((await walk(e, `thread=${dark.thread.id}&order=asc&limit=2`)).map((a) => a.message)).toEqual(asWritten);
    expect((await walk(e, `thread=${dark.thread.id}&limit=2`)).map((a) => a.message)).toEqual([...asWritten].reverse());

    // order=asc needs no thread: the whole channel, oldest first, paged the same way.
    const channel = (await walk(e, 'limit=4')).map((a) => a.id);
    expect(channel).toHaveLength(6);
    expect((await walk(e, 'order=asc&limit=4')).map((a) => a.id)).toEqual([...channel].reverse());
    expect((await page(e, 'order=desc')).alerts.map((a) => a.id)).toEqual(channel);

    // Combined with the other filters: the other post, and polling with after in order.
    expect((await page(e, `thread=${csv.thread.id}`)).alerts.map((a) => a.id)).toEqual([alertIdFromSnowflake(csv.starter.id)]);
    expect((await page(e, `thread=${dark.thread.id}&order=asc&after=${oldest.alerts[2]!.id}`)).alerts.map((a) => a.message)).toEqual(asWritten.slice(3));
    expect((await page(e, `thread=${dark.thread.id}&status=resolved`)).alerts).toEqual([]);
  });

  it('a thread that does not exist, or belongs to another channel, is an empty page', async () => {
    const { e, dark } = await forum();
    const empty = { alerts: [], nextCursor: null, hasMore: false };
    expect(await page(e, `thread=${UNKNOWN_THREAD}`)).toEqual(empty);
    expect(await page(e, `thread=${dark.thread.id}&order=asc`, 'community')).toEqual(empty);
  });

  it('bad thread and order values are 400 problem documents naming the parameter', async () => {
    const { e, dark } = await forum();
    const bad = [
      ['thread=abc', 'thread'],
      ['thread=123', 'thread'],
      ['thread=123456789012345678901', 'thread'],
      [`thread=${dark.thread.id}&thread=${dark.thread.id}`, 'thread'],
      ['thread=', 'thread'],
      ['order=up', 'order'],
      ['order=ASC', 'order'],
      ['order=asc&order=desc', 'order'],
    ] as const;
    for (const [query, param] of bad) {
      for (const path of [`/api/channels/requests/alerts?${query}`, ...(param === 'thread' ? [`/api/search?q=please&${query}`] : [])]) {
        const res = await call(e, path);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        const body = (await res.json()) as { errors?: Array<{ path: Array<string | number> }>; detail?: string };
        expect(JSON.stringify(body), path).toContain(param);
      }
    }
    for (const query of ['tag=', `tag=${'x'.repeat(101)}`, 'tag=a%00b', 'tag=ui&tag=api']) {
      const res = await call(e, `/api/search?q=please&${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it("search finds messages by their thread's name, with the message's own words too, and follows a rename", async () => {
    const { e, dark, csv } = await forum();
    const darkIds = (await page(e, `thread=${dark.thread.id}`)).alerts.map((a) => a.id).sort();

    // Only the starter says "please": the replies are found by the post's title alone.
    expect(await found(e, 'q=dark')).toEqual(darkIds);
    expect(await found(e, 'q=%22dark%20mode%22&channel=requests')).toEqual(darkIds);
    // Words of the name and of the message together.
    expect((await search(e, 'q=dark%20here')).alerts.map((a) => a.message).sort()).toEqual(['same here 1', 'same here 2', 'same here 3', 'same here 4']);
    expect((await search(e, 'q=export%20here')).alerts).toEqual([]);
    expect((await search(e, 'q=csv')).alerts.map((a) => a.id)).toEqual([alertIdFromSnowflake(csv.starter.id)]);

    e.fake.community.updateThread(dark.thread.id, { name: 'Night theme' });
    await eventually(async () => (await search(e, 'q=night')).alerts.length === 5, 'the new name found');
    expect(await found(e, 'q=night%20theme')).toEqual(darkIds);
    expect((await search(e, 'q=dark')).alerts).toEqual([]);
    expect((await search(e, 'q=mode')).alerts).toEqual([]);
  });

  it('search narrows to one thread with thread= and to forum posts with a tag with tag=', async () => {
    const { e, dark, csv } = await forum();
    const darkStarter = alertIdFromSnowflake(dark.starter.id);
    const csvStarter = alertIdFromSnowflake(csv.starter.id);
    expect(await found(e, 'q=please')).toEqual([csvStarter, darkStarter].sort());
    expect((await search(e, `q=please&thread=${dark.thread.id}`)).alerts.map((a) => a.id)).toEqual([darkStarter]);
    expect((await search(e, `q=please&thread=${UNKNOWN_THREAD}`)).alerts).toEqual([]);
    expect((await search(e, 'q=please&tag=ui')).alerts.map((a) => a.id)).toEqual([darkStarter]);
    expect((await search(e, 'q=please&tag=api&channel=requests')).alerts.map((a) => a.id)).toEqual([csvStarter]);
    expect((await search(e, 'q=please&tag=UI')).alerts).toEqual([]);
    // Every message of a tagged post carries its tags.
    expect((await search(e, 'q=same&tag=ui')).alerts).toHaveLength(4);
    expect((await search(e, 'q=same&tag=api')).alerts).toEqual([]);

    // A tag change on the post moves its messages with it.
    e.fake.community.updateThread(csv.thread.id, { tags: ['ui', 'api'] });
    await eventually(async () => (await search(e, 'q=please&tag=ui')).alerts.length === 2, 'the post tagged ui');
  });

  it('the MCP tools take the same filters and answer the same pages', async () => {
    const { e, dark } = await forum();
    const owner = await httpClient(e.h.base, e.ws.ownerToken);
    try {
      const listed = await callTool(owner, 'list_alerts', { channel: 'requests', thread: dark.thread.id, order: 'asc', limit: 2 });
      expect(listed.isError).toBe(false);
      expect(listed.json).toEqual(await page(e, `thread=${dark.thread.id}&order=asc&limit=2`));
      const found = await callTool(owner, 'search_alerts', { query: 'dark', thread: dark.thread.id, tag: 'ui' });
      expect(found.isError).toBe(false);
      expect(found.json).toEqual(await search(e, `q=dark&thread=${dark.thread.id}&tag=ui`));
      const bad = await callTool(owner, 'list_alerts', { channel: 'requests', thread: 'abc' });
      expect(bad.isError).toBe(true);
    } finally {
      await owner.close();
    }
  });
});
