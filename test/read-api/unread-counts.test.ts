import { accepted, bodyOf } from '../helpers/bodies.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessageInput } from '../../src/domain/chat/types.js';
import { startHarness, type Harness, postAlert, seedWorkspace } from '../helpers/harness.js';

/**
 * The channel list's `_count.alerts` is arithmetic on stored numbers (README
 * "Read state that scales"). Here it is checked, after every kind of change,
 * against two independent answers: a brute-force count of `isRead: false`
 * over every page of the channel, and a model the test keeps of which alerts
 * each user should see unread.
 */

let h: Harness;
afterEach(async () => h?.close());

/** A read-API call that must answer 200; the caller reads the body through its schema. */
type Api = (method: string, path: string, token: string, json?: unknown) => Promise<Response>;

async function setUp() {
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' } });
  const s = h.services;
  const seed = await seedWorkspace(s);
  const third = await s.accounts.createUser('third@acme.test', 'Tess Third');
  await s.accounts.addMember(seed.ws.id, third.id);
  await s.accounts.addChannelMember(seed.secret.id, third.id);
  const users = { owner: seed.ownerToken, member: seed.memberToken, third: (await s.accounts.createToken(seed.ws.id, third.id)).token };
  const api: Api = async (method, path, token, json) => {
    const res = await h.call(method, `/api${path}`, { token, json });
    expect(res.status, `${method} ${path}`).toBe(200);
    return res;
  };
  const link = { channelId: seed.deploys.id, discordChannelId: '1300000000000000000' };
  await s.discordLinks.connect(link.channelId, link.discordChannelId);
  return { s, seed, users, api, link };
}

/** Expected unread alert ids per user token and channel id. */
class Model {
  private readonly unread = new Map<string, Map<string, Set<string>>>();
  set(token: string, channelId: string): Set<string> {
    let byChannel = this.unread.get(token);
    if (!byChannel) this.unread.set(token, (byChannel = new Map()));
    let set = byChannel.get(channelId);
    if (!set) byChannel.set(channelId, (set = new Set()));
    return set;
  }
  /** A new or resurfaced alert: unread for everyone (including users who cannot see the channel now: the count is theirs if they can later). */
  added(tokens: string[], channelId: string, id: string) {
    for (const t of tokens) this.set(t, channelId).add(id);
  }
  gone(id: string) {
    for (const byChannel of this.unread.values()) for (const set of byChannel.values()) set.delete(id);
  }
}

async function unreadByPages(api: Api, token: string, channelId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await bodyOf.searchPage(await api('GET', `/channels/${channelId}/alerts?limit=100${cursor ? `&cursor=${cursor}` : ''}`, token));
    for (const a of page.alerts) if (!a.isRead) ids.push(a.id);
    cursor = page.hasMore ? page.nextCursor : null;
  } while (cursor);
  return ids.sort();
}

/** Every visible channel of every user: the list's count = the pages' unread = the model. */
async function expectExact(api: Api, model: Model, tokens: string[], step: string) {
  for (const token of tokens) {
    const channels = await bodyOf.channels(await api('GET', '/channels', token));
    for (const c of channels) {
      const pages = await unreadByPages(api, token, c.id);
      const expected = [...model.set(token, c.id)].sort();
      expect(pages, `${step}: pages of ${c.slug} for ${token.slice(-4)}`).toEqual(expected);
      expect(c._count.alerts, `${step}: count of ${c.slug} for ${token.slice(-4)}`).toBe(expected.length);
    }
  }
}

const chatMessage = (n: number, text = `message ${n}`): ChatMessageInput => ({
  // Snowflakes in order: (ms since the Discord epoch) << 22.
  messageId: String((BigInt(1_000_000 + n) << 22n) + 1300000000000000000n),
  createdAt: Date.UTC(2026, 0, 1) + n,
  editedAt: null,
  text,
  author: { id: '1200000000000000000', name: 'Alice', bot: false, role: 'member' },
  replyTo: null,
  attachments: [],
});

describe('unread counts', () => {
  it('stay exact through read, unread, mark-all-read, resurfacing, chat edit and delete, alert delete, retention, member removal and a channel made private', async () => {
    const { s, seed, users, api, link } = await setUp();
    const all = [users.owner, users.member, users.third];
    const secretMembers = [users.owner, users.third];
    const model = new Model();
    const post = async (hook: string, payload: object) => {
      const { res, body } = await postAlert(h, hook, payload);
      expect(res.status).toBe(201);
      return accepted(body).alertId;
    };
    const setRead = async (token: string, channelId: string, id: string, isRead: boolean) => {
      await bodyOf.anyAlert(await api('PATCH', `/alerts/${id}`, token, { isRead }));
      if (isRead) model.set(token, channelId).delete(id);
      else model.set(token, channelId).add(id);
    };
    const markAll = async (token: string, channelId?: string) => {
      await bodyOf.markedAllRead(await api('POST', '/alerts/mark-all-read', token, channelId ? { channelId } : {}));
      const channels = await bodyOf.channels(await api('GET', '/channels', token));
      for (const c of channels) if (!channelId || c.id === channelId) model.set(token, c.id).clear();
    };
    const general = seed.general.id;
    const secret = seed.secret.id;

    const g: string[] = [];
    for (let i = 0; i < 12; i++) model.added(all, general, (g[i] = await post(seed.general.webhookToken, { title: `g${i}` })));
    const sec: string[] = [];
    for (let i = 0; i < 4; i++) model.added(secretMembers, secret, (sec[i] = await post(seed.secret.webhookToken, { title: `s${i}` })));
    await s.chatIngest.store(link, [1, 2, 3, 4, 5].map((n) => chatMessage(n)));
    const chatIds = (await unreadByPages(api, users.owner, link.channelId)).sort();
    for (const id of chatIds) model.added(all, link.channelId, id);
    await expectExact(api, model, all, 'never read');

    // Read and unread, with and without a watermark, above and below it.
    await setRead(users.member, general, g[3]!, true);
    await setRead(users.member, general, g[3]!, false);
    await setRead(users.member, general, g[5]!, true);
    await markAll(users.owner, general);
    await setRead(users.owner, general, g[2]!, false);
    await setRead(users.owner, general, g[2]!, false);
    for (let i = 12; i < 18; i++) model.added(all, general, (g[i] = await post(seed.general.webhookToken, { title: `g${i}` })));
    await setRead(users.owner, general, g[14]!, true);
    await setRead(users.owner, general, g[15]!, true);
    await setRead(users.owner, general, g[15]!, false);
    await markAll(users.third);
    await setRead(users.third, secret, sec[1]!, false);
    await expectExact(api, model, all, 'read and unread');

    // A workflow run: read individually and by the watermark, then it finishes and resurfaces for everyone.
    const run = { title: 'deploy', workflow: { runId: 'run-1', state: 'running', steps: [{ name: 'build', state: 'running' }] } };
    const runId = await post(seed.general.webhookToken, run);
    model.added(all, general, runId);
    await setRead(users.member, general, runId, true);
    await markAll(users.third, general);
    await setRead(users.owner, general, g[16]!, true);
    await post(seed.general.webhookToken, { ...run, workflow: { ...run.workflow, steps: [{ name: 'build', state: 'done' }] } }); // silent update
    await expectExact(api, model, all, 'running update');
    await post(seed.general.webhookToken, { ...run, workflow: { runId: 'run-1', state: 'passed', steps: [{ name: 'build', state: 'done' }] } });
    model.added(all, general, runId);
    await expectExact(api, model, all, 'resurfaced');
    await setRead(users.owner, general, runId, true);
    await expectExact(api, model, all, 'resurfaced then read');

    // Chat: an edit changes nothing about read state; a delete takes the message out of every count.
    await markAll(users.member, link.channelId);
    await setRead(users.owner, link.channelId, chatIds[1]!, true);
    await setRead(users.member, link.channelId, chatIds[2]!, false);
    expect(await s.chatIngest.edit(link, { ...chatMessage(2, 'edited'), editedAt: Date.UTC(2026, 0, 2) })).toBe('updated');
    await expectExact(api, model, all, 'chat edit');
    await s.chatIngest.store(link, [chatMessage(6)]);
    const newest = (await unreadByPages(api, users.member, link.channelId)).find((id) => !chatIds.includes(id))!;
    model.added(all, link.channelId, newest);
    expect(await s.chatIngest.remove(link, [chatMessage(2).messageId, chatMessage(3).messageId, chatMessage(6).messageId])).toBe(3);
    for (const id of [chatIds[1]!, chatIds[2]!, newest]) model.gone(id);
    await expectExact(api, model, all, 'chat delete');

    // Single deletes: below a watermark, above it, one with exceptions.
    for (const id of [g[0]!, g[14]!, g[15]!, g[5]!]) {
      expect(await s.store.removal.deleteAlert(id, Date.now())).not.toBeNull();
      model.gone(id);
    }
    await expectExact(api, model, all, 'alert delete');

    // Retention keeps the newest 8: the cut runs across every watermark.
    await s.retentionSettings.setChannel(general, { maxAlerts: 8 });
    await s.retention.pass();
    const kept = new Set((await h.query<{ id: string }>('SELECT id FROM alerts')).map((r) => r.id));
    for (const id of [...g, runId]) if (!kept.has(id)) model.gone(id);
    expect(kept.size).toBe(8 + 4 + 3);
    await expectExact(api, model, all, 'retention');

    // Member removal hides the channel; read state is kept for a later re-add.
    await s.accounts.removeChannelMember(secret, 'third@acme.test');
    const sec4 = await post(seed.secret.webhookToken, { title: 's4' });
    model.added(secretMembers, secret, sec4);
    await expectExact(api, model, all, 'member removed');
    expect((await bodyOf.channels(await api('GET', '/channels', users.third))).map((c) => c.id)).not.toContain(secret);
    await s.accounts.addChannelMember(secret, 'third@acme.test');
    await expectExact(api, model, all, 'member re-added');

    // No operation makes a channel private yet: the flag is flipped as a future one would.
    expect(await h.exec('UPDATE channels SET is_private = TRUE WHERE id = ?', [general])).toBe(1);
    await s.accounts.addChannelMember(general, 'owner@acme.test');
    model.added(all, general, await post(seed.general.webhookToken, { title: 'private now' }));
    await setRead(users.owner, general, g[17]!, true);
    await expectExact(api, model, all, 'made private');
    expect((await bodyOf.channels(await api('GET', '/channels', users.member))).map((c) => c.id)).not.toContain(general);

    for (const t of all) await markAll(t);
    await expectExact(api, model, all, 'everything read');
    model.added(all, secret, await post(seed.secret.webhookToken, { title: 'after all' }));
    await expectExact(api, model, all, 'one more');
  });

  it('stay exact through a long random mix of the same operations', async () => {
    const { s, seed, users, api } = await setUp();
    const all = [users.owner, users.member, users.third];
    const model = new Model();
    const ch = seed.general.id;
    let state = 42;
    const rand = (n: number) => ((state = (state * 1103515245 + 12345) & 0x7fffffff) % n);
    const live: string[] = [];
    const runs = new Map<string, string>();
    const finished = new Set<string>();
    for (let step = 0; step < 160; step++) {
      const op = rand(10);
      const token = all[rand(3)]!;
      if (op < 3 || live.length === 0) {
        const { alertId } = accepted((await postAlert(h, seed.general.webhookToken, { title: `a${step}` })).body);
        live.push(alertId);
        model.added(all, ch, alertId);
      } else if (op < 6) {
        const id = live[rand(live.length)]!;
        const isRead = rand(2) === 0;
        await bodyOf.alert(await api('PATCH', `/alerts/${id}`, token, { isRead }));
        if (isRead) model.set(token, ch).delete(id);
        else model.set(token, ch).add(id);
      } else if (op === 6) {
        await bodyOf.markedAllRead(await api('POST', '/alerts/mark-all-read', token, { channelId: ch }));
        model.set(token, ch).clear();
      } else if (op === 7) {
        const [id] = live.splice(rand(live.length), 1);
        await s.store.removal.deleteAlert(id!, Date.now());
        model.gone(id!);
      } else {
        // A run: started (a new alert), or finished (the same alert resurfaced, unread for everyone).
        const runId = `run-${rand(4)}-${step >> 5}`;
        if (finished.has(runId)) continue; // a finished run's repeat changes nothing
        const state = runs.has(runId) ? 'passed' : 'running';
        const { res, body } = await postAlert(h, seed.general.webhookToken, { title: runId, workflow: { runId, state, steps: [] } });
        expect(res.status).toBe(201);
        const { alertId } = accepted(body);
        if (state === 'running') runs.set(runId, alertId);
        else finished.add(runId);
        if (!live.includes(alertId)) live.push(alertId);
        model.added(all, ch, alertId);
      }
      if (step % 20 === 19) await expectExact(api, model, all, `step ${step}`);
    }
    await expectExact(api, model, all, 'end');
  });
});
