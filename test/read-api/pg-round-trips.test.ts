import { afterEach, expect, it, vi } from 'vitest';
import { NulSafeClient } from '../../src/db/pg/nul-safe-client.js';
import { describePg } from '../helpers/pg.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';

/**
 * The read API's statements per request on PostgreSQL, counted (not timed): each is a round trip
 * to the server. A page is two: the token look-up that also counts the request against the token's
 * rate limit (src/db/pg/token-budget.ts), and one statement for the channel with the user's read
 * state and the rows with their attachments (src/db/pg/alert-store/channel-pages.ts).
 */
let h: Harness;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
});

/** What each statement the node's pool sent while `request` ran is for (every pool client is a NulSafeClient). */
async function statementsOf(request: () => Promise<Response>): Promise<string[]> {
  const texts: string[] = [];
  const query = NulSafeClient.prototype.query;
  const spy = vi.spyOn(NulSafeClient.prototype, 'query').mockImplementation(function (this: NulSafeClient, ...args: unknown[]) {
    const config = args[0];
    texts.push(typeof config === 'string' ? config : String((config as { text?: unknown }).text));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  try {
    const res = await request();
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  } finally {
    spy.mockRestore();
  }
  return texts.map((text) =>
    /FROM api_tokens/.test(text) && /INSERT INTO rate_limits/.test(text) ? 'token and rate limit' : /FROM api_tokens/.test(text) ? 'token' : /UPDATE api_tokens SET last_used_at/.test(text) ? 'token last used' : /INSERT INTO rate_limits/.test(text) ? 'rate limit' : /FROM alerts a WHERE/.test(text) && /"hasExceptions"/.test(text) ? 'channel and page' : text,
  );
}

describePg('read API statements per request on PostgreSQL', () => {
  it('reads a page in two statements, the token with its rate limit and the page, whatever its read state and attachments', async () => {
    h = await startHarness({ engine: 'postgres' });
    const seed = await seedWorkspace(h.services);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await postAlert(h, seed.general.webhookToken, { title: `alert ${i}` })).body.alertId as string);
    // A read exception and attachments: before, each was a statement of its own.
    expect((await h.call('PATCH', `/api/alerts/${ids[1]}`, { token: seed.ownerToken, json: { isRead: true } })).status).toBe(200);
    await h.exec("INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES (?, 0, 'k.png', 'image/png', 'image', 'k.png', 3)", [ids[2]]);
    const page = (path: string) => () => h.call('GET', path, { token: seed.ownerToken });
    // (The PATCH above stamped the token's last use, which is written once a minute: src/domain/tokens.ts.)
    const PAGE = ['token and rate limit', 'channel and page'];
    expect(await statementsOf(page('/api/channels/general/alerts'))).toEqual(PAGE);
    expect(await statementsOf(page('/api/channels/general/alerts?limit=2'))).toEqual(PAGE);
    expect(await statementsOf(page(`/api/channels/${seed.general.id}/alerts?limit=2&cursor=${ids[1]}&status=open`))).toEqual(PAGE);
    expect(await statementsOf(page(`/api/channels/${seed.deploys.id}/alerts`))).toEqual(PAGE);
    const channels = await statementsOf(page('/api/channels'));
    expect(channels[0]).toBe('token and rate limit');
    expect(channels).toHaveLength(2);
  });

  it('reads the channel a slug names now, after it moved to another channel', async () => {
    h = await startHarness({ engine: 'postgres' });
    const seed = await seedWorkspace(h.services);
    await postAlert(h, seed.general.webhookToken, { title: 'in general' });
    await postAlert(h, seed.deploys.webhookToken, { title: 'in deploys' });
    const body = async (path: string) => (await h.call('GET', path, { token: seed.ownerToken })).text();
    expect(await body('/api/channels/general/alerts')).toContain('in general');
    await h.exec("UPDATE channels SET slug = 'old-general' WHERE id = ?", [seed.general.id]);
    await h.exec("UPDATE channels SET slug = 'general' WHERE id = ?", [seed.deploys.id]);
    const moved = await body('/api/channels/general/alerts');
    expect(moved).toContain('in deploys');
    expect(moved).toBe(await body(`/api/channels/${seed.deploys.id}/alerts`));
    expect(await body('/api/channels/old-general/alerts')).toBe(await body(`/api/channels/${seed.general.id}/alerts`));
  });
});

describePg('webhook statements per batch on PostgreSQL', () => {
  it('writes an alert, its usage, outbox rows, route deliveries and change event in five round trips', async () => {
    h = await startHarness({ engine: 'postgres' });
    const seed = await seedWorkspace(h.services);
    await postAlert(h, seed.general.webhookToken, { title: 'warm the channel cache' });
    const texts: string[] = [];
    const query = NulSafeClient.prototype.query;
    vi.spyOn(NulSafeClient.prototype, 'query').mockImplementation(function (this: NulSafeClient, ...args: unknown[]) {
      const config = args[0];
      texts.push(typeof config === 'string' ? config : String((config as { text?: unknown }).text));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const posted = await postAlert(h, seed.general.webhookToken, { title: 'counted' });
    vi.restoreAllMocks();
    expect(posted.res.status).toBe(201);
    const kinds = texts.map((t) =>
      /^BEGIN/.test(t) ? 'begin' : /INSERT INTO channel_stats/.test(t) ? 'seqs' : /INSERT INTO alerts/.test(t) && /usage_counters/.test(t) ? 'alerts+usage'
        : /notification_jobs/.test(t) && /route_deliveries/.test(t) && /pg_notify/.test(t) && /INSERT INTO alert_events/.test(t) ? 'tail' : /^COMMIT/.test(t) ? 'commit' : t.slice(0, 60),
    );
    // Besides the batch: whatever else the request read (the rate limit's count).
    expect(kinds.filter((k) => ['begin', 'seqs', 'alerts+usage', 'tail', 'commit'].includes(k))).toEqual(['begin', 'seqs', 'alerts+usage', 'tail', 'commit']);
    expect(kinds.filter((k) => !['begin', 'seqs', 'alerts+usage', 'tail', 'commit'].includes(k)).every((k) => /rate_limits/.test(k) || /^SELECT/.test(k))).toBe(true);
    // What the tail wrote is there: the alert's outbox job and its change event.
    const id = posted.body.alertId as string;
    expect(await h.query('SELECT kind FROM notification_jobs WHERE alert_id = ?', [id])).toHaveLength(1);
    expect(await h.query("SELECT type FROM alert_events WHERE alert_id = ? AND type = 'alert.created'", [id])).toHaveLength(1);
  });
});
