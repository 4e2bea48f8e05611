import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { ALERT_COLUMNS } from '../src/db/alert-store/rows.js';
import { createApp } from '../src/http/app.js';
import { IdGenerator } from '../src/lib/ids.js';
import { createServices } from '../src/services.js';
import { ms, summarize, timeIt, timePair } from './lib.js';

/**
 * The read API on 1,000,000 alerts in one channel: list pages (first and deep),
 * the channel list with unread counts, mark-all-read, and the same list query
 * issued straight against SQLite as the baseline, all in one run. Requests go
 * through the whole app (auth, rate limit, validation, rendering) in-process.
 */
const ALERTS = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const ITER = Number(process.env.BENCH_ITER ?? 2000);

export async function readApiBench(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-read-'));
  const s = createServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' }));
  try {
    const ws = s.accounts.createWorkspace('Bench');
    const user = s.accounts.createUser('bench@example.com');
    s.accounts.addMember(ws.id, user.id, 'owner');
    const channel = s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
    const { token } = s.accounts.createToken(ws.id, user.id);

    // Seed: 1 ms apart, so ids and timestamps look like a real history.
    let clock = Date.UTC(2026, 0, 1);
    const ids = new IdGenerator(() => clock);
    const insert = s.db.sqlite.prepare(
      `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source, activity_key, created_at, updated_at)
       VALUES (?, ?, 'standard', ?, ?, '🚀', ?, ?, 'https://ci.example.com/runs/1', 'View', 'bench', ?, ?, ?)`,
    );
    const levels = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];
    const fields = JSON.stringify([{ label: 'service', value: 'api', inline: true }, { label: 'version', value: 'v1.42.0', inline: true }]);
    const seedStart = performance.now();
    const tx = s.db.sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        clock++;
        const id = ids.next('alt');
        insert.run(id, channel.id, `Deploy ${i} finished`, levels[i % 4], 'All checks passed; 3 instances updated.', fields, id, clock, clock);
      }
    });
    for (let i = 0; i < ALERTS; i += 10_000) tx(i, Math.min(ALERTS, i + 10_000));
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

    const [apiFirstT, sqlFirstT] = await timePair(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50`), () => directFirst.all(channel.id));
    const [apiDeepT, sqlDeepT] = await timePair(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50&cursor=${deepCursor}`), () => direct.all(channel.id, deepCursor));
    const [apiFirst, sqlFirst, apiDeep, sqlDeep] = [apiFirstT, sqlFirstT, apiDeepT, sqlDeepT].map(summarize) as ReturnType<typeof summarize>[];
    const level = summarize(await timeIt(ITER, () => fetchText(`/api/channels/${channel.slug}/alerts?limit=50&level=error`)));
    const channelsNeverRead = summarize(await timeIt(Math.min(ITER, 500), () => fetchText('/api/channels')));
    const page = (await get(`/api/channels/${channel.slug}/alerts?limit=1`)) as { alerts: { id: string }[] };
    if (page.alerts.length !== 1) throw new Error('empty channel');

    const t = performance.now();
    const markRes = await app.request('/api/alerts/mark-all-read', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ channelId: channel.slug }) });
    const markMs = performance.now() - t;
    if (markRes.status !== 200) throw new Error(`mark-all-read ${markRes.status}`);
    const unreadAfter = ((await get('/api/channels')) as { _count: { alerts: number } }[])[0]!._count.alerts;
    const channelsAfterMark = summarize(await timeIt(Math.min(ITER, 500), () => fetchText('/api/channels')));
    // Half read: a watermark in the middle of the channel (the slow case for a count).
    s.db.sqlite.prepare('UPDATE read_marks SET watermark = ?').run(deepCursor);
    const channelsMidway = summarize(await timeIt(50, () => fetchText('/api/channels')));

    type S = ReturnType<typeof summarize>;
    const row = (name: string, r: S | undefined, base?: S) =>
      `| ${name} | ${ms(r!.p50)} | ${ms(r!.p99)} | ${base ? `${(r!.p50 / base.p50).toFixed(2)}x / ${(r!.p99 / base.p99).toFixed(2)}x` : ''} |`;
    return [
      `### Read API on ${ALERTS.toLocaleString('en')} alerts in one channel (seeded in ${seedSeconds.toFixed(1)} s; ${ITER} requests each, in-process through the whole app)`,
      '',
      '| operation | p50 ms | p99 ms | vs direct SQLite (p50 / p99) |',
      '|---|---|---|---|',
      row('direct SQLite: first page query (baseline)', sqlFirst),
      row('direct SQLite: deep page query (baseline)', sqlDeep),
      row('GET alerts, first page (limit 50)', apiFirst, sqlFirst),
      row(`GET alerts, deep page (cursor ${Math.floor(ALERTS / 10).toLocaleString('en')} from the oldest)`, apiDeep, sqlDeep),
      row('GET alerts, level=error', level),
      row(`GET channels with unread counts (${ALERTS.toLocaleString('en')} unread, never read)`, channelsNeverRead),
      row('GET channels after mark-all-read', channelsAfterMark),
      row('GET channels with the watermark 10 % into the channel (900k unread)', channelsMidway),
      '',
      `mark-all-read on ${ALERTS.toLocaleString('en')} unread alerts: **${ms(markMs)} ms**; unread afterwards: ${unreadAfter}.`,
    ].join('\n');
  } finally {
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await readApiBench());
