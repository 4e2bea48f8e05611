import { afterEach, expect, it } from 'vitest';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { describeEngines } from '../helpers/harness.js';
import { callTool, httpClient } from '../mcp/helpers.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';

interface ThreadPage {
  threads: Array<{ id: string; name: string; tags: string[]; starterAlertId: string | null; messageCount: number; lastMessageAt: string | null; reactionCount: number }>;
  nextCursor: string | null;
  hasMore: boolean;
}

describeEngines('GET /api/channels/{channel}/threads', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /** A private channel `requests` (owner only) fed by a forum with three posts: votes 1, 3, 0; the last post is the newest. */
  async function forumWithPosts() {
    const e = (env = await BridgeEnv.create({ engine }));
    const { fake, seed } = e;
    const forum = fake.community.addForumChannel(seed.guild.id, { name: 'feature-requests', tags: ['ui', 'api'] });
    const ch = await e.h.services.accounts.createChannel({ workspaceId: e.ws.ws.id, name: 'Requests', slug: 'requests', icon: '💡', isPrivate: true });
    await e.h.services.accounts.addChannelMember(ch.id, e.ws.owner.id);
    await e.links().connect(ch.id, forum.id);
    await e.bridge!.sync.tick();
    await e.caughtUp(forum.id);
    const post = (title: string, tags: string[]) => {
      fake.advanceTime(1_000);
      return fake.community.addForumPost(forum.id, { title, authorId: seed.alice.id, content: `${title}, please`, tags });
    };
    const dark = post('Dark mode', ['ui']);
    const export_ = post('CSV export', ['api']);
    fake.advanceTime(1_000);
    e.send({ channelId: dark.thread.id, authorId: seed.bob.id, content: '+1' });
    const sso = post('SSO', ['ui', 'api']);
    fake.community.react(dark.thread.id, dark.starter.id, seed.bob.id, '👍');
    for (const u of [seed.alice.id, seed.bob.id, seed.owner.id]) fake.community.react(export_.thread.id, export_.starter.id, u, '👍');
    await eventually(async () => {
      const page = await threads(e, '?sort=reactions');
      return page.threads.length === 3 && page.threads[0]!.reactionCount === 3 && page.threads[1]!.reactionCount === 1;
    }, 'three posts with their votes');
    return { e, dark, export_, sso };
  }

  async function call(e: BridgeEnv, query = '', token = e.ws.ownerToken, slug = 'requests') {
    return e.h.call('GET', `/api/channels/${slug}/threads${query}`, { token });
  }

  async function threads(e: BridgeEnv, query = ''): Promise<ThreadPage> {
    const res = await call(e, query);
    expect(res.status).toBe(200);
    return (await res.json()) as ThreadPage;
  }

  it('lists posts newest activity first with counts, tags and the starter alert; pages with cursor', async () => {
    const { e, dark, export_, sso } = await forumWithPosts();
    const page = await threads(e);
    expect(page.threads.map((t) => t.name)).toEqual(['SSO', 'Dark mode', 'CSV export']);
    expect(page.threads[1]).toEqual({
      id: dark.thread.id,
      name: 'Dark mode',
      tags: ['ui'],
      starterAlertId: alertIdFromSnowflake(dark.starter.id),
      messageCount: 2,
      lastMessageAt: page.threads[1]!.lastMessageAt,
      reactionCount: 1,
    });
    expect(Date.parse(page.threads[1]!.lastMessageAt!)).toBeGreaterThan(Date.parse(page.threads[2]!.lastMessageAt!));
    expect(page).toMatchObject({ nextCursor: null, hasMore: false });

    const first = await threads(e, '?limit=1');
    expect(first.threads.map((t) => t.id)).toEqual([sso.thread.id]);
    expect(first.hasMore).toBe(true);
    const second = await threads(e, `?limit=1&cursor=${first.nextCursor}`);
    const third = await threads(e, `?limit=1&cursor=${second.nextCursor}`);
    expect([...second.threads, ...third.threads].map((t) => t.id)).toEqual([dark.thread.id, export_.thread.id]);
    expect(third.hasMore).toBe(false);
  });

  it('sort=reactions orders by the starter message votes; tag= filters by tag name', async () => {
    const { e } = await forumWithPosts();
    expect((await threads(e, '?sort=reactions')).threads.map((t) => [t.name, t.reactionCount])).toEqual([
      ['CSV export', 3],
      ['Dark mode', 1],
      ['SSO', 0],
    ]);
    expect((await threads(e, '?tag=ui')).threads.map((t) => t.name)).toEqual(['SSO', 'Dark mode']);
    expect((await threads(e, '?tag=api&sort=reactions')).threads.map((t) => t.name)).toEqual(['CSV export', 'SSO']);
    expect((await threads(e, '?tag=nope')).threads).toEqual([]);
  });

  it('a private channel is a 404 for a non-member, as is an unknown one; bad queries are 400 problems; no token is 401', async () => {
    const { e } = await forumWithPosts();
    for (const res of [await call(e, '', e.ws.memberToken), await call(e, '', e.ws.ownerToken, 'no-such-channel'), await call(e, '', e.ws.strangerToken)]) {
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    for (const q of ['?sort=votes', '?limit=0', '?cursor=abc', '?cursor=1.2', '?tag=']) {
      const res = await call(e, q);
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await e.h.call('GET', '/api/channels/requests/threads')).status).toBe(401);
    // A channel without threads lists none.
    const empty = await call(e, '', e.ws.ownerToken, 'community');
    expect(await empty.json()).toEqual({ threads: [], nextCursor: null, hasMore: false });
  });

  it('MCP list_threads answers the same page as the endpoint, with the same 404 for a private channel', async () => {
    const { e } = await forumWithPosts();
    const owner = await httpClient(e.h.base, e.ws.ownerToken);
    const member = await httpClient(e.h.base, e.ws.memberToken);
    try {
      const byVotes = await callTool(owner, 'list_threads', { channel: 'requests', sort: 'reactions', tag: 'ui' });
      expect(byVotes.isError).toBe(false);
      expect(byVotes.json).toEqual(await threads(e, '?sort=reactions&tag=ui'));
      const hidden = await callTool(member, 'list_threads', { channel: 'requests' });
      expect(hidden.isError).toBe(true);
      expect(JSON.parse(hidden.text)).toMatchObject({ status: 404 });
    } finally {
      await owner.close();
      await member.close();
    }
  });
});
