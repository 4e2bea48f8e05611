import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** Issue 29 in the dashboard, over real HTTP: reaction chips under chat messages, threads and forum posts in the feed. */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  h = await startDashboard();
  seed = await seedWorkspace(h.services);
});
afterAll(async () => {
  await h?.close();
});

const mia = { id: 'u1', name: 'Mia Member', bot: false, role: 'member' as const };
const msg = (n: number, at: number, text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `14000000000000001${String(n).padStart(2, '0')}`, createdAt: at, editedAt: null, text, author: mia, replyTo: null, attachments: [], ...extra,
});

/** The <li> of one feed entry, found by its text. */
function entryOf(html: string, text: string): string {
  const entries = html.split('<li class="feed-entry"').slice(1);
  const found = entries.find((e) => e.includes(text));
  expect(found, `an entry with ${text}`).toBeDefined();
  return found!;
}

describe('chat in the feed: reactions and threads', () => {
  it('shows reaction chips with one accessible sentence under a message, and nothing for a message without reactions', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Feedback', icon: '💬' });
    await h.services.discordLinks.connect(chat.id, '1400000000000000001');
    const link = { channelId: chat.id, discordChannelId: '1400000000000000001' };
    const t0 = Date.now() - 10 * 60_000;
    await h.services.chatIngest.store(link, [
      msg(1, t0, 'Dark mode please', { reactions: [{ emoji: '👍', count: 2 }, { emoji: '🎉', count: 1 }] }),
      msg(2, t0 + 60_000, 'No reactions on this one'),
      msg(3, t0 + 120_000, 'Custom emoji', { reactions: [{ emoji: ':party_parrot:', count: 1 }] }),
    ]);
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.owner.id);
    const { res, html } = await client.get(`/feed/c/${chat.slug}`);
    expect(res.status).toBe(200);
    const voted = entryOf(html, 'Dark mode please');
    expect(voted).toContain('<ul class="ab-reactions" aria-label="3 reactions: 👍 2, 🎉 1">');
    expect(voted.match(/class="ab-reaction"/g)).toHaveLength(2);
    expect(voted).toMatch(/👍 <span class="ab-reaction-count">2<\/span>/);
    expect(entryOf(html, 'Custom emoji')).toContain('aria-label="1 reaction: :party_parrot: 1"');
    expect(entryOf(html, 'No reactions on this one')).not.toContain('ab-reactions');
  });

  it('folds a thread under its head message as "N replies"; its replies open in place (fragment) or on the thread’s page', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Requests', icon: '🗳️' });
    await h.services.discordLinks.connect(chat.id, '1400000000000000002');
    const link = { channelId: chat.id, discordChannelId: '1400000000000000002' };
    const t0 = Date.now() - 10 * 60_000;
    const post = { id: '1400000000000000110', name: 'Export to CSV <b>now</b>', tags: ['feature', 'export'], archived: false };
    // A thread started without a starter message in the channel: its first message is its head.
    const loose = { id: '1400000000000000500', name: 'Loose thread', tags: [], archived: false };
    await h.services.chatIngest.store(link, [
      { ...msg(10, t0, 'Please add a CSV export', { thread: post, reactions: [{ emoji: '👍', count: 5 }] }) },
      msg(11, t0 + 60_000, 'Yes, for our finance team', { thread: post }),
      msg(12, t0 + 120_000, 'Unrelated channel message'),
      msg(13, t0 + 180_000, 'And XLSX too', { thread: post }),
      msg(14, t0 + 240_000, 'First words of a loose thread', { thread: loose }),
    ]);
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.owner.id);
    const { html } = await client.get(`/feed/c/${chat.slug}`);
    // The replies are not interleaved in the channel's feed.
    expect(html).not.toContain('Yes, for our finance team');
    expect(html).not.toContain('And XLSX too');
    const head = entryOf(html, 'Please add a CSV export');
    // The name is the sender's text: escaped, never markup.
    expect(head).toContain('<span class="ab-thread-chip">Thread: Export to CSV &lt;b&gt;now&lt;/b&gt;</span>');
    expect(head).toContain('<span class="ab-tag-chip">feature</span><span class="ab-tag-chip">export</span>');
    expect(head).toContain('aria-label="5 reactions: 👍 5"');
    const url = `/feed/c/${chat.slug}/threads/${post.id}`;
    expect(head).toContain(`<a class="thread-fold-link" href="${url}" hx-get="${url}?fragment=1" hx-target="closest .thread-fold" hx-swap="outerHTML" aria-label="2 replies in “Export to CSV &lt;b&gt;now&lt;/b&gt;”">`);
    expect(head).toContain(`<time datetime="${new Date(t0 + 180_000).toISOString()}"`);
    expect(entryOf(html, 'Unrelated channel message')).not.toContain('ab-thread-chip');
    // A thread with only its head shows no fold.
    expect(entryOf(html, 'First words of a loose thread')).not.toContain('thread-fold');

    const fragment = await client.get(`${url}?fragment=1`);
    expect(fragment.res.status).toBe(200);
    expect(fragment.html.startsWith('<div class="thread-fold is-open">')).toBe(true);
    expect(fragment.html).not.toContain('Please add a CSV export');
    expect(fragment.html.indexOf('Yes, for our finance team')).toBeLessThan(fragment.html.indexOf('And XLSX too'));
    expect(fragment.html).not.toContain('<html');

    const full = await client.get(url);
    expect(full.res.status).toBe(200);
    expect(full.html).toContain('<h1 id="thread-title">Export to CSV &lt;b&gt;now&lt;/b&gt;</h1>');
    const order = ['Please add a CSV export', 'Yes, for our finance team', 'And XLSX too'].map((t) => full.html.indexOf(t));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBeGreaterThan(0);

    // Unknown threads, another channel's thread and a channel of another workspace are 404s.
    expect((await client.get(`/feed/c/${chat.slug}/threads/1400000000000009999`)).res.status).toBe(404);
    expect((await client.get(`/feed/c/${chat.slug}/threads/not-a-thread`)).res.status).toBe(404);
    expect((await client.get(`/feed/c/${seed.general.slug}/threads/${post.id}`)).res.status).toBe(404);
    const stranger = new DashClient(h, 'http');
    await stranger.signInWithLink(seed.stranger.id);
    expect((await stranger.get(`/feed/c/${chat.slug}/threads/${post.id}`)).res.status).toBe(404);
  });

  it('pages a long thread: the first 100 messages, then "Later messages" until the last, and a clear 400 for a bad after', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Long threads', icon: '🧵' });
    await h.services.discordLinks.connect(chat.id, '1400000000000000008');
    const link = { channelId: chat.id, discordChannelId: '1400000000000000008' };
    const t0 = Date.now() - 60 * 60_000;
    const thread = { id: '1400000000000000700', name: 'Release feedback', tags: [], archived: false };
    const long = Array.from({ length: 130 }, (_, i) => ({
      messageId: `1400000000000${String(1000 + i).padStart(6, '0')}`, createdAt: t0 + i * 1000, editedAt: null, text: `Reply number ${i}.`, author: mia, replyTo: null, attachments: [], thread,
    }));
    await h.services.chatIngest.store(link, long);
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.owner.id);
    const url = `/feed/c/${chat.slug}/threads/${thread.id}`;
    const shown = (html: string) => [...html.matchAll(/Reply number (\d+)\./g)].map((m) => Number(m[1]));

    const first = await client.get(url);
    expect(first.res.status).toBe(200);
    expect(shown(first.html)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(first.html).toContain('The first 100 messages, oldest first');
    const later = /<a class="button" href="([^"]+)">Later messages<\/a>/.exec(first.html);
    expect(later, 'a Later messages link').not.toBeNull();

    const second = await client.get(later![1]!.replaceAll('&amp;', '&'));
    expect(second.res.status).toBe(200);
    expect(shown(second.html)).toEqual(Array.from({ length: 30 }, (_, i) => 100 + i));
    expect(second.html).toContain('30 later messages, oldest first');
    expect(second.html).not.toContain('>Later messages</a>');
    expect(second.html).toContain(`<a href="${url}">From the first message</a>`);

    // The fold's fragment leads on to the later messages too.
    const fragment = await client.get(`${url}?fragment=1`);
    expect(fragment.html).toContain('Later replies on the thread’s page');
    expect(fragment.html).toContain(`href="${later![1]}"`);

    // Past the last message: an empty page, not an error; a malformed after: a 400 problem page.
    const lastId = /after=([^"&]+)/.exec(later![1]!)![1]!;
    const beyond = await client.get(`${url}?after=zzzzzzzz`);
    expect(beyond.res.status).toBe(200);
    expect(beyond.html).toContain('No later messages.');
    expect(lastId).toMatch(/^[A-Za-z0-9_]+$/);
    expect((await client.get(`${url}?after=${encodeURIComponent("'; DROP TABLE alerts;--")}`)).res.status).toBe(400);
    expect((await client.get(`/feed/c/${chat.slug}/threads/1400000000000009999?after=${lastId}`)).res.status).toBe(404);
  });
});

describe("a forum channel's posts list", () => {
  it('lists posts with tags, votes, replies and last activity; sorts by votes; filters by tag; 404 for an unknown channel', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Ideas', icon: '💡' });
    await h.services.discordLinks.connect(chat.id, '1400000000000000003');
    const link = { channelId: chat.id, discordChannelId: '1400000000000000003' };
    const t0 = Date.now() - 60 * 60_000;
    const csv = { id: '1400000000000000120', name: 'CSV export', tags: ['feature'], archived: false };
    const sso = { id: '1400000000000000130', name: 'SAML sign-in', tags: ['feature', 'security'], archived: false };
    await h.services.chatIngest.store(link, [
      msg(20, t0, 'CSV please', { thread: csv, reactions: [{ emoji: '👍', count: 9 }] }),
      msg(21, t0 + 60_000, 'Me too', { thread: csv }),
      msg(22, t0 + 120_000, 'And XLSX', { thread: csv }),
      msg(30, t0 + 30 * 60_000, 'SAML for our IdP', { thread: sso, reactions: [{ emoji: '👍', count: 2 }] }),
    ]);
    const client = new DashClient(h, 'http');
    await client.signInWithLink(seed.owner.id);
    const feed = await client.get(`/feed/c/${chat.slug}`);
    expect(feed.html).toContain(`href="/feed/c/${chat.slug}/posts"`);

    const names = (html: string) => [...html.matchAll(/<span class="post-title">([^<]*)<\/span>/g)].map((m) => m[1]);
    const byActivity = await client.get(`/feed/c/${chat.slug}/posts`);
    expect(byActivity.res.status).toBe(200);
    expect(names(byActivity.html)).toEqual(['SAML sign-in', 'CSV export']);
    const csvRow = byActivity.html.split('<li class="post-row"').find((r) => r.includes('CSV export'))!;
    expect(csvRow).toContain('<span class="ab-tag-chip">feature</span>');
    expect(csvRow).toMatch(/9 votes/);
    expect(csvRow).toMatch(/2 replies/);
    expect(csvRow).toContain(`<time datetime="${new Date(t0 + 120_000).toISOString()}"`);

    const byVotes = await client.get(`/feed/c/${chat.slug}/posts?sort=reactions`);
    expect(names(byVotes.html)).toEqual(['CSV export', 'SAML sign-in']);
    expect(byVotes.html).toMatch(/<option value="reactions" selected[^>]*>/);
    const tagged = await client.get(`/feed/c/${chat.slug}/posts?tag=security`);
    expect(names(tagged.html)).toEqual(['SAML sign-in']);

    expect((await client.get(`/feed/c/${chat.slug}/posts?sort=bogus`)).res.status).toBe(400);
    expect((await client.get('/feed/c/no-such-channel/posts')).res.status).toBe(404);
    expect((await client.get(`/feed/c/${seed.general.slug}/posts`)).res.status).toBe(404);
  });
});
