import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessageInput } from '../../src/domain/chat/types.js';
import { startHarness, type Harness, listen, postAlert, seedWorkspace } from '../helpers/harness.js';
import { accepted, bodyOf } from '../helpers/bodies.js';

/**
 * GET /api/search over real HTTP, on either engine: SQLite with the migration's FTS5 index and
 * triggers, or PostgreSQL's search column (search-sqlite.test.ts: what only the FTS5 index has).
 */

let h: Harness;
let server: Awaited<ReturnType<typeof listen>>;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

async function start() {
  h = await startHarness();
  seed = await seedWorkspace(h.services);
  server = await listen(h.app.fetch);
}
async function stop() {
  await server?.close();
  await h?.close();
}

/** GET /api/search; the body read by `read`: a page, or the problem a refusal documents. */
async function search<T>(params: Record<string, string>, read: (res: Response) => Promise<T>, token = seed.ownerToken): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}/api/search?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await read(res) };
}
const page = (params: Record<string, string>, token?: string) => search(params, bodyOf.searchPage, token);
const titles = async (q: string, extra: Record<string, string> = {}, token?: string) => {
  const r = await page({ q, ...extra }, token);
  expect(r.status).toBe(200);
  // A standard alert by its title, a chat message by its text.
  return r.body.alerts.map((a) => ('title' in a ? a.title : a.message));
};
const post = async (token: string, payload: object) => {
  const r = await postAlert(h, token, payload);
  expect(r.res.status).toBeLessThan(300);
  return accepted(r.body).alertId;
};

describe('GET /api/search refusals', () => {
  // Nothing here stores anything: one harness for them all.
  beforeAll(start);
  afterAll(stop);

  it.each([
    [{}, 'q'],
    [{ q: '' }, 'q'],
    [{ q: 'x'.repeat(257) }, 'q'],
    [{ q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, 'q'],
    [{ q: 'x', level: 'critical' }, 'level'],
    [{ q: 'x', cursor: 'alt_nope' }, 'cursor'],
    [{ q: 'x', cursor: '0' }, 'cursor'],
    [{ q: 'x', limit: '0' }, 'limit'],
    [{ q: 'x', limit: '101' }, 'limit'],
  ])('answers %j with a 400 invalid-query naming %s', async (params, param) => {
    const r = await search(params as Record<string, string>, bodyOf.invalid);
    expect(r.status).toBe(400);
    expect(r.body.type).toMatch(/invalid-query$/);
    expect(JSON.stringify(r.body.details)).toContain(param);
  });

  it('needs a token like the rest of the read API', async () => {
    const res = await fetch(`${server.url}/api/search?q=x`);
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    const ok = await fetch(`${server.url}/api/search?q=x`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
    expect(ok.headers.get('ratelimit-limit')).not.toBeNull();
  });
});

describe('GET /api/search', () => {
  beforeEach(start);
  afterEach(stop);

  it('finds an alert by a word of a field value, of the actor, of the message; words are ANDed', async () => {
    await post(seed.general.webhookToken, { title: 'Order placed', fields: [{ label: 'Region', value: 'frankfurt' }] });
    await post(seed.general.webhookToken, { title: 'New signup', message: 'from the pricing page', actor: { name: 'Jane Roe', email: 'jane@globex.test', company: 'Globex' } });
    await post(seed.deploys.webhookToken, { title: 'Deploy api', message: 'frankfurt cluster' });
    expect(await titles('frankfurt')).toEqual(['Deploy api', 'Order placed']);
    expect(await titles('globex')).toEqual(['New signup']);
    expect(await titles('Jane pricing')).toEqual(['New signup']);
    expect(await titles('frankfurt cluster')).toEqual(['Deploy api']);
    expect(await titles('frankfurt nothere')).toEqual([]);
    const full = await page({ q: 'region' });
    expect(full.body).toMatchObject({ nextCursor: null, hasMore: false });
    expect(full.body.alerts[0]).toMatchObject({ title: 'Order placed', fields: [{ label: 'Region', value: 'frankfurt', inline: false }], isRead: false });
  });

  it('matches a prefix with a trailing * and a phrase in quotes', async () => {
    await post(seed.general.webhookToken, { title: 'Payment failed for invoice' });
    await post(seed.general.webhookToken, { title: 'Failed payment retried' });
    expect(await titles('pay*')).toEqual(['Failed payment retried', 'Payment failed for invoice']);
    expect(await titles('"payment failed"')).toEqual(['Payment failed for invoice']);
    expect(await titles('payment failed')).toHaveLength(2);
  });

  it('treats operators as literal text and never answers 500 to hostile queries', async () => {
    await post(seed.general.webhookToken, { title: 'x', message: 'foo' }); // a column filter title:foo would find nothing here, "title" is no word of it
    await post(seed.general.webhookToken, { title: 'config key title:foo is wrong' });
    expect(await titles('title:foo')).toEqual(['config key title:foo is wrong']);
    expect(await titles('foo NOT wrong')).toEqual([]);
    for (const q of ['"', '*', 'NEAR(', 'NEAR(a b, 1)', '(x', 'a OR', '^x', '-foo', '{title}:x', '"un"balanced"', '🚀', 'ｆｏｏ', '\u0000x', '%', "'; DROP TABLE alerts; --"]) {
      const r = await page({ q });
      expect(r.status, q).toBe(200);
      expect(r.body, q).toMatchObject({ hasMore: false });
    }
  });

  it("never shows a private channel's alerts to a non-member; a channel filter on it is the usual 404", async () => {
    await post(seed.secret.webhookToken, { title: 'leaked credential rotated' });
    await post(seed.general.webhookToken, { title: 'credential check passed' });
    expect(await titles('credential', {}, seed.memberToken)).toEqual(['credential check passed']);
    expect(await titles('credential', {}, seed.ownerToken)).toEqual(['credential check passed', 'leaked credential rotated']);
    expect(await titles('credential', {}, seed.strangerToken)).toEqual([]);
    const hidden = await search({ q: 'credential', channel: 'security' }, bodyOf.sentProblem, seed.memberToken);
    const missing = await search({ q: 'credential', channel: 'nope' }, bodyOf.sentProblem, seed.memberToken);
    expect(hidden.status).toBe(404);
    const { requestId: _a, ...hiddenBody } = hidden.body;
    const { requestId: _b, ...missingBody } = missing.body;
    expect(hiddenBody).toEqual(missingBody);
    expect(await titles('credential', { channel: 'security' })).toEqual(['leaked credential rotated']);
    expect(await titles('credential', { channel: seed.general.id })).toEqual(['credential check passed']);
  });

  it('filters by level (standard alerts only)', async () => {
    await post(seed.general.webhookToken, { title: 'disk usage high', level: 'warning' });
    await post(seed.general.webhookToken, { title: 'disk usage normal', level: 'success' });
    expect(await titles('disk', { level: 'WARNING' })).toEqual(['disk usage high']);
    expect(await titles('disk', { level: 'error' })).toEqual([]);
  });

  it('pages newest first with a cursor, without duplicates or gaps, while new alerts arrive', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await post(seed.general.webhookToken, { title: `batch job ${i}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await page({ q: 'batch', limit: '5', ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      seen.push(...r.body.alerts.map((a) => a.id));
      expect(r.body.hasMore).toBe(r.body.nextCursor !== null);
      cursor = r.body.nextCursor;
      // Newer matches arriving mid-walk land before the first page, never in the pages still to come.
      if (seen.length === 5) await post(seed.general.webhookToken, { title: 'batch job late' });
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('keeps the index in step with a workflow run updated in place', async () => {
    const run = { title: 'Nightly export', workflow: { runId: 'r-1', state: 'running', steps: [{ name: 'extract', state: 'running' }] } };
    const id = await post(seed.general.webhookToken, run);
    expect((await page({ q: 'extract' })).body.alerts.map((a) => a.id)).toEqual([id]);
    await post(seed.general.webhookToken, { ...run, workflow: { runId: 'r-1', state: 'failed', steps: [{ name: 'upload', state: 'failed' }], error: 'bucket quota exceeded' } });
    expect(await titles('extract')).toEqual([]);
    expect(await titles('upload')).toEqual(['Nightly export']);
    expect(await titles('quota')).toEqual(['Nightly export']);
    expect((await page({ q: 'nightly' })).body.alerts).toHaveLength(1);
  });

  it('keeps the index in step with chat edits and deletes, and returns chat messages in their chat shape', async () => {
    const link = { channelId: seed.deploys.id, discordChannelId: '1300000000000000000' };
    await h.services.discordLinks.connect(link.channelId, link.discordChannelId);
    const msg = (text: string): ChatMessageInput => ({
      messageId: '1300000000004194304',
      createdAt: Date.UTC(2026, 0, 1),
      editedAt: null,
      text,
      author: { id: '1200000000000000000', name: 'Alice Feedback', bot: false, role: 'member' },
      replyTo: null,
      attachments: [],
    });
    await h.services.chatIngest.store(link, [msg('the export button is broken')]);
    const found = await page({ q: 'export button' });
    expect(found.body.alerts).toHaveLength(1);
    expect(found.body.alerts[0]).toMatchObject({ message: 'the export button is broken', author: { name: 'Alice Feedback' }, editedAt: null });
    expect(found.body.alerts[0]).not.toHaveProperty('title');
    expect(await titles('alice')).toEqual(['the export button is broken']);
    expect(await search({ q: 'export', channel: 'deploys', level: 'info' }, bodyOf.problem).then((r) => r.status)).toBe(400);

    await h.services.chatIngest.edit(link, { ...msg('the export button works now'), editedAt: Date.UTC(2026, 0, 1, 0, 5) });
    expect(await titles('broken')).toEqual([]);
    expect(await titles('works')).toEqual(['the export button works now']);

    await h.services.chatIngest.remove(link, ['1300000000004194304']);
    expect(await titles('export')).toEqual([]);
    expect(await titles('alice')).toEqual([]);
  });

  it('forgets alerts deleted by any path: a plain DELETE (as retention does) and a channel delete', async () => {
    await post(seed.general.webhookToken, { title: 'token leaked in log' });
    await post(seed.deploys.webhookToken, { title: 'token rotated' });
    expect(await h.exec("DELETE FROM alerts WHERE title = 'token leaked in log'")).toBe(1);
    expect(await titles('token')).toEqual(['token rotated']);
    expect(await h.exec('DELETE FROM channels WHERE id = ?', [seed.deploys.id])).toBe(1);
    expect(await titles('token')).toEqual([]);
    expect(await h.count('alerts')).toBe(0);
    await post(seed.general.webhookToken, { title: 'token again' });
    expect(await titles('token')).toEqual(['token again']);
  });

  it('highlights where the words were found, for the dashboard', async () => {
    const owner = { tokenId: 'n/a', userId: seed.owner.id, workspaceId: seed.ws.id };
    const member = { tokenId: 'n/a', userId: seed.member.id, workspaceId: seed.ws.id };
    const highlighted = async (p: typeof owner, q: string) => (await h.services.search.searchHighlighted(p, { q, limit: 25 })).highlights;
    const id = await post(seed.general.webhookToken, { title: 'Deploy <api> done', message: 'rolled out to eu-west', actor: { name: 'Deployer Bot' } });
    const [hl] = await highlighted(owner, 'deploy* eu');
    expect(hl).toMatchObject({ alertId: id, title: { text: 'Deploy <api> done', ranges: [[0, 6]] }, actor: { text: 'Deployer Bot', ranges: [[0, 8]] } });
    expect(hl!.body.text).toContain('eu-west');

    // Fields read "label: value", apart by " · ", not run into the prose; the found word is marked where it is.
    const withFields = await post(seed.general.webhookToken, {
      title: 'Order placed',
      message: 'New order.',
      fields: [{ label: 'Region', value: 'eu-central-1' }, { label: 'Tier', value: 'gold' }],
    });
    const [f] = await highlighted(owner, 'gold');
    expect(f!.alertId).toBe(withFields);
    expect(f!.body.text).toBe('New order. Region: eu-central-1 · Tier: gold');
    expect(f!.body.ranges).toEqual([[f!.body.text.length - 4, f!.body.text.length]]);
    // A private channel's alert is found and highlighted for its member, never for anyone else.
    const hidden = await post(seed.secret.webhookToken, { title: 'Deploy secret' });
    expect((await highlighted(owner, 'deploy')).map((x) => x.alertId)).toEqual([hidden, id]);
    expect((await highlighted(member, 'deploy')).map((x) => x.alertId)).toEqual([id]);
  });
});
