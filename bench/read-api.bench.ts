import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { ALERT_COLUMNS } from '../src/db/sqlite/alert-store/rows.js';
import { feedPage } from '../src/dashboard/feed/feed-query.js';
import { bindValues } from '../src/db/shared/statement.js';
import { UNREAD_PAGE_STATEMENTS } from '../src/db/shared/unread-pages.js';
import { createApp } from '../src/http/app.js';
import { openServices, sqliteServicesOf } from '../src/services.js';
import { ms, summarize, timeIt, timePair } from './lib.js';
import { emitResult, hasFlag, QUICK } from './lib/result.js';
import { attributeTail, timeTraced, withGcPauses, type TailAttribution } from './lib/tail.js';

/**
 * The read API at several sizes (100k and 1M alerts in one channel; 10M with
 * `--10m`; one size with BENCH_ALERTS): list pages (first and deep), the
 * channel list with unread counts, mark-all-read, and the same list query
 * issued straight against SQLite as the baseline, all in one run. Requests go
 * through the whole app (auth, rate limit, validation, rendering) in-process.
 * The full table is printed for 1,000,000 alerts (or the one size given); a
 * second table shows how page and channel-list p99 grow with the size.
 */
const ITER = Number(process.env.BENCH_ITER ?? (QUICK ? 50 : 2000));
const SIZES = process.env.BENCH_ALERTS
  ? [Number(process.env.BENCH_ALERTS)]
  : QUICK
    ? [2_000]
    : [100_000, 1_000_000, ...(hasFlag('10m') ? [10_000_000] : [])];
const MAIN_SIZE = SIZES.includes(1_000_000) ? 1_000_000 : SIZES.at(-1)!;
const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

type S = ReturnType<typeof summarize>;

/**
 * Seeds `count` alerts 1 ms apart in one statement (a recursive CTE, so no
 * JavaScript round trip per row, which matters at 10M). Ids follow the
 * service's layout (`alt_` + 26 Crockford characters, sorting by time): a
 * 10-character time part made of the row number and a zero tail.
 */
function seed(sqlite: import('better-sqlite3').Database, channelId: string, count: number) {
  const start = Date.UTC(2026, 0, 1);
  sqlite
    .prepare(
      `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source, activity_key, created_at, updated_at, seq)
       WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ? - 1)
       SELECT 'alt_01' || printf('%08d', i) || '0000000000000000', ?, 'standard', 'Deploy ' || i || ' finished',
              CASE i % 4 WHEN 0 THEN 'INFO' WHEN 1 THEN 'SUCCESS' WHEN 2 THEN 'WARNING' ELSE 'ERROR' END, '🚀',
              'All checks passed; 3 instances updated.', ?, 'https://ci.example.com/runs/1', 'View', 'bench',
              'alt_01' || printf('%08d', i) || '0000000000000000', ? + i, ? + i, i + 1
       FROM seq`,
    )
    .run(count, channelId, JSON.stringify([{ label: 'service', value: 'api', inline: true }, { label: 'version', value: 'v1.42.0', inline: true }]), start, start);
}

async function measureSize(ALERTS: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-read-'));
  const s = sqliteServicesOf(await openServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' })));
  try {
    const ws = await s.accounts.createWorkspace('Bench');
    const user = await s.accounts.createUser('bench@example.com');
    await s.accounts.addMember(ws.id, user.id, 'owner');
    const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
    const { token } = await s.accounts.createToken(ws.id, user.id);

    const seedStart = performance.now();
    seed(s.db.sqlite, channel.id, ALERTS);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    s.db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    s.db.sqlite.exec('ANALYZE');

    const app = createApp(s);
    const headers = { authorization: `Bearer ${token}` };
    // Reads the whole body (the bytes a client receives) without parsing it:
    // parsing is the client's cost, not the service's.
    const fetchText = async (p: string) => {
      const res = await app.request(p, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text}`);
      return text;
    };
    const get = async (p: string) => JSON.parse(await fetchText(p));
    const deepCursor = (s.db.sqlite.prepare('SELECT id FROM alerts ORDER BY id LIMIT 1 OFFSET ?').get(Math.floor(ALERTS / 10)) as { id: string }).id;
    const direct = s.db.sqlite.prepare(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.channel_id = ? AND a.id < ? ORDER BY a.id DESC LIMIT 51`);
    const directFirst = s.db.sqlite.prepare(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.channel_id = ? ORDER BY a.id DESC LIMIT 51`);
    const main = ALERTS === MAIN_SIZE;

    const [apiFirstT, sqlFirstT] = await timePair(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50`), () => directFirst.all(channel.id));
    const [apiDeepT, sqlDeepT] = main ? await timePair(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50&cursor=${deepCursor}`), () => direct.all(channel.id, deepCursor)) : [[], []];
    const [apiFirst, sqlFirst, apiDeep, sqlDeep] = [apiFirstT, sqlFirstT, apiDeepT, sqlDeepT].map(summarize) as [S, S, S, S];
    // Where the first page's slowest 1 % goes: GC pauses, waiting for the CPU, or the path itself (bench/lib/tail.ts).
    const firstTail: TailAttribution | undefined = main
      ? await (async () => {
          const { result, pauses } = await withGcPauses(async () => {
            const out = [];
            for (let i = 0; i < ITER; i++) out.push(await timeTraced(() => fetchText(`/api/channels/${channel.slug}/alerts?limit=50`)));
            return out;
          });
          return attributeTail(result, pauses);
        })()
      : undefined;
    const level = main ? summarize(await timeIt(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50&level=error`))) : undefined;
    // Never read: the count covers the whole channel, so fewer samples above 1M keep the run short.
    const channelsNeverRead = summarize(await timeIt(ALERTS > 1_000_000 ? 20 : Math.min(ITER, main ? 500 : 100), () => fetchText('/api/channels')));
    const page = (await get(`/api/channels/${channel.slug}/alerts?limit=1`)) as { alerts: { id: string }[] };
    if (page.alerts.length !== 1) throw new Error('empty channel');

    const t = performance.now();
    const markRes = await app.request('/api/alerts/mark-all-read', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ channelId: channel.slug }) });
    const markMs = performance.now() - t;
    if (markRes.status !== 200) throw new Error(`mark-all-read ${markRes.status}`);
    const unreadAfter = ((await get('/api/channels')) as { _count: { alerts: number } }[])[0]!._count.alerts;
    const channelsAfterMark = summarize(await timeIt(Math.min(ITER, 500), () => fetchText('/api/channels')));
    // Behind: the watermark 10 % into the channel (90 % unread), the slow case for a count.
    // The numbers are dense (nothing deleted), so nothing above the watermark is gone.
    s.db.sqlite.prepare('UPDATE read_marks SET watermark_seq = (SELECT seq FROM alerts WHERE id = ?), gone_above = 0').run(deepCursor);
    const behindIters = main ? Math.min(ITER, 500) : 100;
    const channelsBehind = summarize(await timeIt(behindIters, () => fetchText('/api/channels')));
    const unreadBehind = ((await get('/api/channels')) as { _count: { alerts: number } }[])[0]!._count.alerts;
    // Before (until migration 0011): the count was an index range count above the watermark, O(unread). Timed here on its own, as the reference.
    const oldCount = s.db.sqlite.prepare('SELECT count(*) FROM alerts WHERE channel_id = ? AND id > ?').pluck();
    const oldBehindCount = summarize(await timeIt(ALERTS > 1_000_000 ? 10 : 30, () => oldCount.get(channel.id, deepCursor)));
    if (oldCount.get(channel.id, deepCursor) !== unreadBehind) throw new Error(`unread ${unreadBehind} differs from the brute-force count`);
    // The dashboard's unread-only feed page (25 cards) for this user, 90 % behind, from cursors spread
    // evenly over the whole channel (read and unread parts alike), beside the unfiltered page from the
    // same cursors: the goal is constant work per page whatever the read state.
    const principal = { tokenId: 'bench', userId: user.id, workspaceId: ws.id };
    const [view] = await s.readApi.listChannels(principal);
    const at = s.db.sqlite.prepare('SELECT id FROM alerts WHERE channel_id = ? ORDER BY id LIMIT 1 OFFSET ?').pluck();
    const cursors = [undefined, ...Array.from({ length: 19 }, (_, i) => at.get(channel.id, Math.floor(((i + 1) * ALERTS) / 20)) as string)];
    let turn = 0;
    const feedArgs = (unreadOnly: boolean) => ({ channels: [view!], unreadOnly, limit: 25, cursor: cursors[turn++ % cursors.length] });
    const [unreadFeedT, allFeedT] = main
      ? await timePair(behindIters, () => feedPage(s, principal, feedArgs(true)), () => feedPage(s, principal, feedArgs(false)))
      : [[], []];
    const [unreadFeed, allFeed] = [unreadFeedT, allFeedT].map(summarize) as [S, S];
    // The plan of the unread page's statement from a cursor deep in the read part, as SQLite runs it: the evidence of constant
    // work is that the in-order part is one range of the id index read newest first (no sort), the rest small index ranges.
    const older = UNREAD_PAGE_STATEMENTS.older.sqlite!;
    const planParams = { userId: user.id, channelId: channel.id, cursor: cursors[1]!, limit: 26 };
    const unreadPlan = main
      ? (s.db.sqlite.prepare(`EXPLAIN QUERY PLAN ${older.text}`).all(...bindValues(older, planParams, (v) => v)) as { detail: string }[]).map((r) => r.detail)
      : [];
    // The same pages for a user 10 alerts behind: constant work means the same cost as 90 % behind.
    s.db.sqlite.prepare('UPDATE read_marks SET watermark_seq = (SELECT seq_max FROM channel_stats WHERE channel_id = ?) - 10, gone_above = 0').run(channel.id);
    const unreadFeedTen = main ? summarize(await timeIt(behindIters, () => feedPage(s, principal, feedArgs(true)))) : undefined;
    return { ALERTS, unreadFeed, allFeed, unreadFeedTen, unreadPlan, seedSeconds, apiFirst, sqlFirst, apiDeep, sqlDeep, level, channelsNeverRead, channelsAfterMark, channelsBehind, oldBehindCount, markMs, unreadAfter, firstTail };
  } finally {
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function tailLine(t: TailAttribution): string {
  return (
    `First page, where the slowest 1 % goes (${ITER} more calls, each timed with its CPU time and the GC pauses perf_hooks reports): ` +
    `of ${t.slow} slow calls, **${t.withGc} overlapped a GC pause** (${ms(t.gcMsPerSlow)} ms of pause each on average; ${t.withMajorGc} of them a major or incremental-marking step; pauses over the run: scavenges ${ms(t.minorPauseMeanMs)} ms, major steps ${ms(t.majorPauseMeanMs)} ms on average), ${t.descheduled} waited for the CPU, ${t.onCpu} were slow on the CPU; ` +
    `a GC pause overlapped ${(t.gcShareAll * 100).toFixed(1)} % of all calls. **p99 without GC and waiting: ${ms(t.p99CleanMs)} ms.**`
  );
}

export async function readApiBench(): Promise<string> {
  const results = [];
  for (const size of SIZES) results.push(await measureSize(size));
  const m = results.find((r) => r.ALERTS === MAIN_SIZE)!;
  const ALERTS = m.ALERTS;
  const unread = Math.round(ALERTS * 0.9).toLocaleString('en');

  const figures: Record<string, number | undefined> = {
    pageFirstP50Ms: m.apiFirst.p50,
    pageFirstP99Ms: m.apiFirst.p99,
    pageDirectP50Ms: m.sqlFirst.p50,
    pageDirectP99Ms: m.sqlFirst.p99,
    pageFirstToDirectP99Ratio: m.apiFirst.p99 / m.sqlFirst.p99,
    pageDeepP50Ms: m.apiDeep.p50,
    pageDeepP99Ms: m.apiDeep.p99,
    pageDeepDirectP99Ms: m.sqlDeep.p99,
    pageLevelP99Ms: m.level?.p99,
    channelsNeverReadP50Ms: m.channelsNeverRead.p50,
    channelsNeverReadP99Ms: m.channelsNeverRead.p99,
    channelsAfterMarkP99Ms: m.channelsAfterMark.p99,
    channelsBehindP50Ms: m.channelsBehind.p50,
    channelsBehindP99Ms: m.channelsBehind.p99,
    channelsBehindOldCountP99Ms: m.oldBehindCount.p99,
    markAllReadMs: m.markMs,
    unreadFeedPageP50MsFarBehind: m.unreadFeed.p50,
    unreadFeedPageP99MsFarBehind: m.unreadFeed.p99,
    feedPageP99MsSameCursors: m.allFeed.p99,
    unreadFeedPageP99MsTenBehind: m.unreadFeedTen?.p99,
    pageFirstP99NoGcMs: m.firstTail?.p99CleanMs,
    pageFirstSlowWithGcShare: m.firstTail ? m.firstTail.withGc / m.firstTail.slow : undefined,
    pageFirstSlowDescheduledShare: m.firstTail ? m.firstTail.descheduled / m.firstTail.slow : undefined,
    pageFirstGcShareAll: m.firstTail?.gcShareAll,
  };
  for (const r of results) {
    const at = `At${sizeLabel(r.ALERTS)}`;
    Object.assign(figures, {
      [`pageFirstP99Ms${at}`]: r.apiFirst.p99,
      [`pageDirectP99Ms${at}`]: r.sqlFirst.p99,
      [`channelsBehindP99Ms${at}`]: r.channelsBehind.p99,
      [`channelsBehindOldCountP99Ms${at}`]: r.oldBehindCount.p99,
      [`channelsNeverReadP99Ms${at}`]: r.channelsNeverRead.p99,
      [`seedSeconds${at}`]: r.seedSeconds,
    });
  }
  const r1m = results.find((r) => r.ALERTS === 1_000_000);
  const r10m = results.find((r) => r.ALERTS === 10_000_000);
  if (r1m && r10m) {
    figures.pageFirstP99Growth1MTo10M = r10m.apiFirst.p99 / r1m.apiFirst.p99;
    figures.channelsBehindP99Growth1MTo10M = r10m.channelsBehind.p99 / r1m.channelsBehind.p99;
  }
  emitResult(figures);

  const row = (name: string, r: S | undefined, base?: S) =>
    `| ${name} | ${ms(r!.p50)} | ${ms(r!.p99)} | ${base ? `${(r!.p50 / base.p50).toFixed(2)}x / ${(r!.p99 / base.p99).toFixed(2)}x` : ''} |`;
  const growth = results.map(
    (r) =>
      `| ${r.ALERTS.toLocaleString('en')} | ${r.seedSeconds.toFixed(1)} | ${ms(r.apiFirst.p99)} | ${ms(r.sqlFirst.p99)} | ${ms(r.channelsNeverRead.p99)} | ${ms(r.channelsBehind.p99)} | ${ms(r.oldBehindCount.p99)} |`,
  );
  return [
    `### Read API on ${ALERTS.toLocaleString('en')} alerts in one channel (${ITER} requests each, in-process through the whole app)`,
    '',
    '| operation | p50 ms | p99 ms | vs direct SQLite (p50 / p99) |',
    '|---|---|---|---|',
    row('direct SQLite: first page query (baseline)', m.sqlFirst),
    row('direct SQLite: deep page query (baseline)', m.sqlDeep),
    row('GET alerts, first page (limit 50)', m.apiFirst, m.sqlFirst),
    row(`GET alerts, deep page (cursor ${Math.floor(ALERTS / 10).toLocaleString('en')} from the oldest)`, m.apiDeep, m.sqlDeep),
    row('GET alerts, level=error', m.level),
    row(`GET channels with unread counts (${ALERTS.toLocaleString('en')} unread, never read)`, m.channelsNeverRead),
    row('GET channels after mark-all-read', m.channelsAfterMark),
    row(`GET channels with the watermark 10 % into the channel (${unread} unread)`, m.channelsBehind),
    row('dashboard feed page of 25, unfiltered, from 20 cursors spread over the channel (baseline)', m.allFeed),
    row(`dashboard unread-only feed page of 25, same cursors, user 90 % behind (${unread} unread)`, m.unreadFeed, m.allFeed),
    ...(m.unreadFeedTen ? [row('dashboard unread-only feed page of 25, same cursors, user 10 alerts behind', m.unreadFeedTen, m.allFeed)] : []),
    row(`before migration 0011: the index range count those ${unread} unread cost (SQL alone, reference)`, m.oldBehindCount),
    '',
    `mark-all-read on ${ALERTS.toLocaleString('en')} unread alerts: **${ms(m.markMs)} ms**; unread afterwards: ${m.unreadAfter}.`,
    '',
    ...(m.firstTail ? [tailLine(m.firstTail)] : []),
    '',
    ...(m.unreadPlan.length ? ['Unread-only page from a cursor in the read part, as SQLite plans it (EXPLAIN QUERY PLAN):', '', ...m.unreadPlan.map((d) => `- \`${d}\``), ''] : []),
    '#### Cost growth with the channel size (p99 ms)',
    '',
    '| alerts | seeded in s | GET alerts first page | direct SQLite first page | GET channels, never read | GET channels, watermark 10 % in | the count before 0011 (SQL alone) |',
    '|---|---|---|---|---|---|---|',
    ...growth,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await readApiBench());
