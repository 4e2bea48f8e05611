import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { PgAlertSearch } from '../../src/db/pg/alert-store/search.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertReads, AlertSearch, SearchHighlights, SearchQuery } from '../../src/domain/alert-store.js';
import { parseSearchQuery } from '../../src/domain/search-query.js';
import type { Principal } from '../../src/domain/tokens.js';
import type { Value } from '../../src/db/transfer/tables.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * The search rules (README "Search": words, prefixes, phrases, filters, visibility, order, paging,
 * highlights) hold on both engines: the SQLite FTS5 index and PostgreSQL's tsvector column. The
 * same fixture is seeded into both; every query below runs on both, and the hits (ids, order, search
 * keys) and highlights must be equal. The PostgreSQL answers are compared with SQLite's, which the
 * read-API search tests pin down; a few expectations are spelled out so an engine that finds
 * nothing on both sides cannot pass.
 */
const T = Date.UTC(2026, 10, 20, 12);
let n = 0;
function alert(channel: string, over: Record<string, Value>): Record<string, Value> {
  n += 1;
  const id = `alt_${String(n).padStart(2, '0')}`;
  return { id, channel_id: channel, kind: 'standard', title: '', level: 'INFO', emoji: '', activity_key: id, created_at: T + n, updated_at: T + n, ...over };
}
const FILLER = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua';
const ALERTS = [
  alert('ch1', {
    title: 'Deploy api to eu-west', source: 'ci', fields_json: JSON.stringify([{ label: 'Region', value: 'Frankfurt' }, { label: 'Build', value: 42 }]),
    message: 'payment failed for Stripe: retry scheduled. The frankfurt cluster is healthy.',
    actor_json: JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', company: 'Analytical Engines' }),
  }),
  alert('ch1', { title: 'Crème brûlée ready', message: 'payout done', level: 'SUCCESS' }),
  alert('ch2', { title: 'Secret deploy', message: 'payment of the private channel' }),
  alert('ch1', { kind: 'chat', level: 'INFO', message: 'hello title:foo NEAR( (x) OR y -z', author_json: JSON.stringify({ name: 'Grace Hopper' }) }),
  alert('ch1', {
    title: 'Workflow build', level: 'ERROR', workflow_run_id: 'r1', workflow_state: 'failed', workflow_error: 'exit 1 in deploy',
    workflow_steps_json: JSON.stringify([{ name: 'lint' }, { name: 'deploy frankfurt' }]), link_text: 'open the run',
  }),
  alert('ch1', { title: 'Long report', message: `${FILLER}. ${FILLER} payment happened here: deploy now. ${FILLER} ${FILLER} deploy again at the end` }),
  alert('ch1', { title: '🚀 rocket launch!!! ✨', message: `it's "quoted" & <b>bold</b> | a\\b c:d e*f 100% _x_ 'single'`, level: 'WARNING' }),
  alert('ch1', { title: 'v1.2.3 build 42 eu-west-1', message: 'straße İstanbul 日本語 café naïve \uE000pua\uE001 soft\u00ADhyphen' }),
  alert('ch1', { title: 'Deploy deploy deploy', message: 'deploy. deploy: deploy', actor_json: JSON.stringify({ name: 'Deploy Bot' }) }),
  ...Array.from({ length: 7 }, (_, i) => alert(i % 2 ? 'ch1' : 'ch3', { title: `deploy number ${i}`, message: `payment run ${i}`, level: i % 3 ? 'INFO' : 'ERROR' })),
];
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }, { id: 'u2', email: 'm@a.test', name: 'Member', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }, { workspace_id: 'w1', user_id: 'u2', role: 'member', created_at: 1 }]],
  ['channels', [
    { id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 },
    { id: 'ch2', workspace_id: 'w1', name: 'Secret', slug: 'secret', icon: '🔒', is_private: true, webhook_token: 'whk_2', created_at: 2 },
    { id: 'ch3', workspace_id: 'w1', name: 'Other', slug: 'other', icon: '📦', is_private: false, webhook_token: 'whk_3', created_at: 3 },
  ]],
  ['channel_members', [{ channel_id: 'ch2', user_id: 'u1', created_at: 2 }]],
  ['alerts', ALERTS],
];
const owner: Principal = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
const member: Principal = { tokenId: 't2', userId: 'u2', workspaceId: 'w1' };

/** Queries as users type them: the rules, then input that must never reach the engine as syntax. */
const QUERIES = [
  'deploy', 'Deploy FRANKFURT', 'pay*', 'pay', 'creme', 'CRÈME brulee', 'naive cafe', 'strasse', 'straße', 'istanbul', '日本語', 'pua',
  '"eu west"', 'eu-west', '"api eu"', '"eu we', '"eu west" 1', '"deploy frankfurt"', '"frankfurt cluster"', 'title:foo', 'NEAR(', 'OR', '-z', '(x)',
  'ada@example.com', 'lovelace', 'grace', 'analytical eng*', 'exit', 'run', 'lint', 'v1.2.3', '42', 'softhyphen', 'soft', 'hyphen',
  '&|!:*()\'\\', "'", '\\', ':*', 'a:*', 'deploy:*', '!deploy', 'deploy & payment', 'deploy | payment', 'deploy <-> payment', '<->', 'a<->b',
  '"', '""', '"unclosed phrase', '🚀', '🚀deploy', '✨rocket✨', '**deploy', 'deploy**', 'd*', 'e*f', "it's", '100%', '_x_', '%_', 'NULL',
  "'; DROP TABLE alerts; --", '$1', 'deploy\tpayment', 'é', 'e\u0301', '\uE000', 'x'.repeat(256), `${'deploy'.repeat(40)}*`, 'a'.repeat(255) + '*',
  'ünïcödé ÅNGSTRÖM', 'ΣΊΣΥΦΟΣ', '"west payment"', '"healthy region"', '"engines grace"', 'deploy deploy', 'deploy number', '"deploy number"', 'number*', '"number 3"',
];

interface Engine extends EngineHandle {
  search: AlertSearch;
  reads: AlertReads;
}

const terms = (q: string) => parseSearchQuery(q);

function contract(open: () => Promise<Engine>, results: Map<string, unknown>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());

  const run = async (q: string, p: Principal, over: Partial<SearchQuery> = {}) => {
    const hits = await e.search.search({ terms: terms(q), channelIds: await e.reads.visibleChannelIds(p), limit: 50, ...over });
    return hits.map((h) => `${h.id}#${h.searchKey}`);
  };
  const ids = async (q: string, p: Principal = owner, over: Partial<SearchQuery> = {}) => (await run(q, p, over)).map((h) => h.split('#')[0]);
  const record = (key: string, value: unknown) => {
    if (results.has(key)) expect({ key, value }).toEqual({ key, value: results.get(key) });
    else results.set(key, value);
  };

  it('finds words, prefixes and phrases in title, body and actor, newest first', async () => {
    expect(await ids('pay*')).toEqual(['alt_16', 'alt_15', 'alt_14', 'alt_13', 'alt_12', 'alt_11', 'alt_10', 'alt_06', 'alt_03', 'alt_02', 'alt_01']);
    expect(await ids('pay*', member)).toEqual(['alt_16', 'alt_15', 'alt_14', 'alt_13', 'alt_12', 'alt_11', 'alt_10', 'alt_06', 'alt_02', 'alt_01']);
    expect(await ids('creme')).toEqual(['alt_02']);
    expect(await ids('"eu west"')).toEqual(['alt_08', 'alt_01']);
    expect(await ids('"api eu"')).toEqual([]);
    expect(await ids('title:foo')).toEqual(['alt_04']);
    expect(await ids('lovelace frankfurt')).toEqual(['alt_01']);
    expect(await ids('"deploy frankfurt"')).toEqual(['alt_05']);
  });

  it('answers every query, tricky input included, without a database error, as the other engine does', async () => {
    for (const q of QUERIES) {
      let parsed: string;
      try {
        parsed = JSON.stringify(terms(q));
      } catch (err) {
        record(`parse ${q}`, String(err));
        continue;
      }
      record(`terms ${q}`, parsed);
      record(`owner ${q}`, await run(q, owner));
      record(`member ${q}`, await run(q, member));
    }
  });

  it('keeps private channels to their members and applies the channel and level filters', async () => {
    expect(await ids('secret', owner)).toEqual(['alt_03']);
    expect(await ids('secret', member)).toEqual([]);
    expect(await ids('payment', member)).not.toContain('alt_03');
    expect(await ids('deploy', owner, { channelIds: ['ch3'] })).toEqual(['alt_16', 'alt_14', 'alt_12', 'alt_10']);
    expect(await ids('deploy', owner, { level: 'ERROR' })).toEqual(['alt_16', 'alt_13', 'alt_10', 'alt_05']);
    // A chat message has no level: a level filter drops it.
    expect(await ids('grace', owner, { level: 'INFO' })).toEqual([]);
    for (const level of ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] as const) record(`level ${level}`, await run('deploy pay*', owner, { level }));
  });

  it('pages by search key: each page strictly older than the last hit, no duplicates, no gaps', async () => {
    const all = await run('deploy', owner);
    const walked: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await e.search.search({ terms: terms('deploy'), channelIds: ['ch1', 'ch2', 'ch3'], limit: 3, before });
      if (page.length === 0) break;
      walked.push(...page.map((h) => `${h.id}#${h.searchKey}`));
      before = page[page.length - 1]!.searchKey;
    }
    expect(walked).toEqual(all);
    expect(all).toHaveLength(12);
    record('page deploy', walked);
  });

  it('follows every write, whoever makes it: an edit is found by its new words only, a deleted alert no more', async () => {
    await e.exec('UPDATE alerts SET title = ?, actor_json = ? WHERE id = ?', ['Zebra crossing', JSON.stringify({ name: 'Quokka' }), 'alt_02']);
    expect(await ids('zebra quokka')).toEqual(['alt_02']);
    expect(await ids('creme')).toEqual([]);
    await e.exec('DELETE FROM alerts WHERE id = ?', ['alt_02']);
    expect(await ids('zebra')).toEqual([]);
    expect(await ids('payout')).toEqual([]);
  });

  it('marks the found words in the title, a body excerpt and the actor, as the other engine does', async () => {
    const [h] = await e.search.highlights(terms('frankfurt ada pay*'), ['alt_01'], ['ch1']);
    expect(h).toEqual({
      alertId: 'alt_01',
      title: { text: 'Deploy api to eu-west', ranges: [] },
      // The empty parts (steps, error, link text) leave their separating spaces, as the SQLite view does.
      body: { text: 'payment failed for Stripe: retry scheduled. The frankfurt cluster is healthy. Region: Frankfurt · Build: 42    ci', ranges: [[0, 7], [48, 57], [86, 95]] },
      actor: { text: 'Ada Lovelace ada@example.com Analytical Engines', ranges: [[0, 3], [13, 16]] },
    } satisfies SearchHighlights);
    expect(await e.search.highlights(terms('secret'), ['alt_03'], ['ch1'])).toEqual([]);
    for (const q of [...QUERIES.filter((x) => !x.includes('\uE000')), '"frankfurt cluster" healthy', 'deploy again', 'payment happened', 'lorem', 'aliqua deploy']) {
      let t;
      try {
        t = terms(q);
      } catch {
        continue;
      }
      const found = (await run(q, owner)).map((x) => x.split('#')[0]!);
      record(`highlights ${q}`, await e.search.highlights(t, found, ['ch1', 'ch2', 'ch3']));
    }
  });
}

/** SQLite runs first and records its answers; PostgreSQL must give the same. */
const results = new Map<string, unknown>();

describe('search contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    return { ...h, search: store.search, reads: store.reads };
  }, results);
});

describePg('search contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    return { ...h, search: new PgAlertSearch(h.db.pool), reads: new PgAlertReads(h.db.pool) };
  }, results);
});
