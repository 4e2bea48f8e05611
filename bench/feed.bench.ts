import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { SqlSignInLinkRows } from '../src/db/shared/auth-rows.js';
import { SqliteExecutor } from '../src/db/sqlite/executor.js';
import { SignInLinks } from '../src/domain/auth/sign-in-links.js';
import { createApp } from '../src/http/app.js';
import { openServices, sqliteServicesOf } from '../src/services.js';
import { seedAlerts } from './feed-seed.js';
import { ms, summarize, timeIt, timePair } from './lib.js';
import { emitResult, QUICK } from './lib/result.js';

/**
 * The dashboard feed and search (`npm run bench -- feed`), on 1,000,000 alerts
 * in 10 channels with the search index, through the whole app in-process:
 * 1. the feed's first page (All channels, the home page, and one channel) next
 *    to the read API's first page of the same channel, interleaved in the same
 *    run (goal: feed p99 within 3x of the API's);
 * 2. search p99 for one- and two-word queries, API and dashboard page (goal < 20 ms);
 * 3. what a browser downloads on a first load of the feed: the page and every
 *    asset it references, as transferred (goal < 100 KB).
 * The user has read everything up to the last 250 alerts (badges show small
 * numbers, as for someone who uses the dashboard daily); a "never read" channel
 * list counts whole channels and is the read API suite's subject.
 */
const ALERTS = Number(process.env.BENCH_ALERTS ?? (QUICK ? 20_000 : 1_000_000));
const ITER = Number(process.env.BENCH_ITER ?? (QUICK ? 50 : 1000));
const PUBLIC_URL = 'http://bench.local';
type S = ReturnType<typeof summarize>;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-feed-'));
  const s = sqliteServicesOf(await openServices(
    loadConfig({ DATA_DIR: dir, PUBLIC_URL, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' }),
  ));
  try {
    const ws = await s.accounts.createWorkspace('Bench');
    const user = await s.accounts.createUser('bench@example.com', 'Bench User');
    await s.accounts.addMember(ws.id, user.id, 'owner');
    const channels = await Promise.all(Array.from({ length: 10 }, (_, i) => s.accounts.createChannel({ workspaceId: ws.id, name: `Channel ${i}`, icon: '🚀' })));
    const { token } = await s.accounts.createToken(ws.id, user.id);
    const sqlite = s.db.sqlite;
    const seedStart = performance.now();
    seedAlerts(sqlite, channels.map((c) => c.id), ALERTS);
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const app = createApp(s);
    const api = { authorization: `Bearer ${token}` };
    const read = await app.request('/api/alerts/mark-all-read', { method: 'POST', headers: { ...api, 'content-type': 'application/json' }, body: '{}' });
    if (read.status !== 200) throw new Error(`mark-all-read ${read.status}`);
    seedAlerts(sqlite, channels.map((c) => c.id), 250, ALERTS);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.exec('ANALYZE');

    // A dashboard session, signed in the way a person does (one-time link, then the button's POST).
    const link = (await new SignInLinks(new SqlSignInLinkRows(new SqliteExecutor(sqlite)), s.clock).issue(user.id)).secret;
    const signIn = await app.request('/auth/link', {
      method: 'POST',
      headers: { origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t: link }).toString(),
    });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
    if (signIn.status !== 303 || !cookie) throw new Error(`sign-in ${signIn.status}`);
    const page = { cookie, accept: 'text/html' };

    const fetchText = async (p: string, headers: Record<string, string>) => {
      const res = await app.request(p, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    const ch = channels[0]!.slug;
    if ((await fetchText('/feed', page)).split('class="feed-entry"').length !== 26) throw new Error('the feed page does not hold 25 cards');

    // 1. Feed against the API, interleaved so drift on a shared machine lands on both sides.
    const [feedAllT, apiT] = await timePair(ITER, () => fetchText('/feed', page), () => fetchText(`/api/channels/${ch}/alerts?limit=25`, api));
    const [feedOneT, api50T] = await timePair(ITER, () => fetchText(`/feed/c/${ch}`, page), () => fetchText(`/api/channels/${ch}/alerts`, api));
    const [feedAll, apiFirst, feedOne, api50] = [feedAllT, apiT, feedOneT, api50T].map(summarize) as [S, S, S, S];

    // 2. Search at this size.
    const search = async (q: string) => summarize(await timeIt(ITER, () => fetchText(`/api/search?q=${encodeURIComponent(q)}`, api)));
    const oneWord = await search('deploy');
    const twoWords = await search('payment failed');
    const rareWord = await search('checksum');
    // The dashboard's search page (25 results, highlighted) against the API's same 25, interleaved.
    const [searchPageT, searchApiT] = await timePair(
      ITER,
      () => fetchText(`/search?q=${encodeURIComponent('payment failed')}`, page),
      () => fetchText(`/api/search?limit=25&q=${encodeURIComponent('payment failed')}`, api),
    );
    const [searchPage, searchApi25] = [searchPageT, searchApiT].map(summarize) as [S, S];

    // 3. First load: the page and every stylesheet and script it references, bytes as sent.
    const loadHeaders = { ...page, 'accept-encoding': 'gzip, deflate, br' };
    const html = await fetchText('/feed', page);
    const first = await app.request('/feed', { headers: loadHeaders });
    const htmlBytes = (await first.arrayBuffer()).byteLength;
    const assets = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    let assetBytes = 0;
    let rawBytes = Buffer.byteLength(html);
    const perAsset: string[] = [];
    for (const a of assets) {
      const res = await app.request(a, { headers: loadHeaders });
      const sent = (await res.arrayBuffer()).byteLength;
      const plain = (await (await app.request(a)).arrayBuffer()).byteLength;
      assetBytes += sent;
      rawBytes += plain;
      perAsset.push(`${path.basename(a).replace(/\.[0-9a-f]{12}\./, '.')} ${(sent / 1024).toFixed(1)} KB${res.headers.get('content-encoding') ? ` (${res.headers.get('content-encoding')})` : ''}`);
    }
    const firstLoadKb = (htmlBytes + assetBytes) / 1024;

    emitResult({
      feedFirstP50Ms: feedAll.p50,
      feedFirstP99Ms: feedAll.p99,
      apiFirstP50Ms: apiFirst.p50,
      apiFirstP99Ms: apiFirst.p99,
      feedToApiFirstP99Ratio: feedAll.p99 / apiFirst.p99,
      feedChannelFirstP99Ms: feedOne.p99,
      apiFirst50P99Ms: api50.p99,
      searchP99Ms1M: Math.max(oneWord.p99, twoWords.p99),
      searchOneWordP99Ms: oneWord.p99,
      searchTwoWordsP99Ms: twoWords.p99,
      searchRareWordP99Ms: rareWord.p99,
      searchPageP99Ms: searchPage.p99,
      searchPageP50Ms: searchPage.p50,
      searchApi25P50Ms: searchApi25.p50,
      searchApi25P99Ms: searchApi25.p99,
      searchPageToApiP50Ratio: searchPage.p50 / searchApi25.p50,
      feedFirstLoadKb: firstLoadKb,
      feedFirstLoadRawKb: rawBytes / 1024,
      feedSeedSeconds: seedSeconds,
    });
    const row = (name: string, r: S, base?: S) => `| ${name} | ${ms(r.p50)} | ${ms(r.p99)} | ${base ? `${(r.p99 / base.p99).toFixed(2)}x` : ''} |`;
    const load = os.loadavg()[0]!.toFixed(1);
    return [
      `### Dashboard feed and search on ${ALERTS.toLocaleString('en')} alerts in 10 channels (seeded with the search index in ${seedSeconds.toFixed(1)} s; ${ITER} requests each, in-process through the whole app; load average ${load})`,
      '',
      '| request | p50 ms | p99 ms | p99 vs API first page (25) |',
      '|---|---|---|---|',
      row('GET /api/channels/:ch/alerts?limit=25 (baseline, interleaved with the next row)', apiFirst),
      row('GET /feed: All channels, 25 cards, sidebar with 10 unread badges', feedAll, apiFirst),
      row('GET /api/channels/:ch/alerts (limit 50; interleaved with the next row)', api50),
      row('GET /feed/c/:ch: one channel, 25 cards', feedOne, apiFirst),
      row('GET /api/search?q=deploy (one common word)', oneWord),
      row('GET /api/search?q=payment failed (two words)', twoWords),
      row('GET /api/search?q=checksum (a rare word)', rareWord),
      row('GET /api/search?q=payment failed&limit=25 (interleaved with the next row)', searchApi25),
      row('GET /search?q=payment failed (dashboard page, 25 results with highlights)', searchPage),
      '',
      `Search page against the API's same 25 results: **${(searchPage.p50 / searchApi25.p50).toFixed(1)}x at p50** (goal ≤ 3x).`,
      '',
      `First load of the feed (25 cards): **${firstLoadKb.toFixed(1)} KB transferred** (${(rawBytes / 1024).toFixed(1)} KB uncompressed): ` +
        `the page ${(htmlBytes / 1024).toFixed(1)} KB${first.headers.get('content-encoding') ? ` (${first.headers.get('content-encoding')})` : ''}, ${perAsset.join(', ')}; no web fonts.`,
    ].join('\n');
  } finally {
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

console.log(await main());
