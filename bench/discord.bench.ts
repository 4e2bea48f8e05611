/**
 * Discord bridge ingest: MESSAGE_CREATE events from the fake gateway to rows
 * readable by the read API, through the real discord.js client, the mapping,
 * the group commit and the stream event.
 *
 *   npx tsx bench/discord.bench.ts            (BENCH_MESSAGES=20000 by default)
 *
 * The fake Discord runs in THIS process, on the same event loop as the bridge:
 * its JSON encoding and socket writes are charged to the bridge, so the
 * figures are a lower bound of what the bridge does against the real gateway.
 *
 * "Visible" = the row is committed: on every stream wake-up (`alert-events`,
 * emitted after COMMIT) the bench reads the rows added since the last one and
 * stamps them. Lag = visible time - the time the fake dispatched the event.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.js';
import { startDiscordBridge } from '../src/discord/index.js';
import { createLogger } from '../src/lib/logger.js';
import { openServices, sqliteServicesOf } from '../src/services.js';
import { FakeDiscord } from '../test/helpers/fake-discord/index.js';
import { emitResult } from './lib/result.js';

delete process.env.SHARDS;
delete process.env.SHARD_COUNT;

const BURST = Number(process.env.BENCH_MESSAGES ?? 20_000);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const STEADY_RATES = [2_000, 5_000];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Run {
  label: string;
  messages: number;
  seconds: number;
  lags: number[];
}

export async function discordBench(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-discord-bench-'));
  const fake = new FakeDiscord();
  await fake.start();
  const seed = fake.seedGuild('Bench');
  const config = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    AVATAR_BASE_URL: '',
    DISCORD_TOKEN: fake.token,
    DISCORD_API_URL: fake.apiUrl,
  });
  const s = sqliteServicesOf(await openServices(config, { logger: createLogger('warn') }));
  const ws = await s.accounts.createWorkspace('Bench');
  const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'community' });
  await s.discordLinks.connect(channel.id, seed.channel.id);
  const bridge = await startDiscordBridge(s);
  await bridge.ready;
  while (!bridge.sync.stateOf(seed.channel.id)?.isLive) await new Promise((r) => setTimeout(r, 5));

  // Visibility stamps: the rows committed since the previous wake-up.
  const sentAt = new Map<string, number>();
  const lags: number[] = [];
  let lastRowid = 0;
  let lastVisibleAt = 0;
  const newRows = s.db.sqlite.prepare('SELECT rowid AS r, external_id AS e FROM alerts WHERE rowid > ? ORDER BY rowid');
  s.bus.on('alert-events', () => {
    const now = performance.now();
    for (const row of newRows.all(lastRowid) as { r: number; e: string }[]) {
      lastRowid = row.r;
      const t = sentAt.get(row.e);
      if (t === undefined) continue;
      sentAt.delete(row.e);
      lags.push(now - t);
      lastVisibleAt = now;
    }
  });
  const waitAllVisible = async () => {
    while (sentAt.size > 0) await new Promise((r) => setTimeout(r, 1));
  };

  let n = 0;
  const send = () => {
    n++;
    const content =
      n % 10 === 0 ? `<@${seed.alice.id}> login fails again for <@&${seed.oncall.id}> in <#${seed.general.id}>` : `message ${n}: the app crashes when I open settings`;
    const authorId = n % 3 === 0 ? seed.bob.id : seed.alice.id;
    const t = performance.now();
    const m = fake.sendMessage({ channelId: seed.channel.id, authorId, content });
    sentAt.set(m.id, t);
  };

  const runs: Run[] = [];

  // 1. Burst: everything at once (in chunks, so the sockets can drain).
  {
    lags.length = 0;
    const start = performance.now();
    for (let i = 0; i < BURST; i++) {
      send();
      if (i % 250 === 249) await tick();
    }
    await waitAllVisible();
    runs.push({ label: `burst of ${BURST.toLocaleString('en')}`, messages: BURST, seconds: (lastVisibleAt - start) / 1000, lags: [...lags] });
  }

  // 2. Steady rates: dispatch every 5 ms, for STEADY_SECONDS.
  for (const rate of STEADY_RATES) {
    lags.length = 0;
    const total = rate * STEADY_SECONDS;
    const start = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (sent < due) {
        send();
        sent++;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await waitAllVisible();
    runs.push({ label: `steady ${rate.toLocaleString('en')} msg/s for ${STEADY_SECONDS} s`, messages: total, seconds: (lastVisibleAt - start) / 1000, lags: [...lags] });
  }

  const stored = (s.db.sqlite.prepare('SELECT count(*) AS n FROM alerts WHERE channel_id = ?').get(channel.id) as { n: number }).n;
  await bridge.stop();
  s.close();
  await fake.stop();
  fs.rmSync(dir, { recursive: true, force: true });

  const [burst, ...steady] = runs;
  const lagP = (r: Run | undefined, p: number) => (r ? percentile([...r.lags].sort((a, b) => a - b), p) : undefined);
  emitResult({
    discordBurstMsgPerSec: burst ? burst.messages / burst.seconds : undefined,
    discordBurstLagP99Ms: lagP(burst, 99),
    ...Object.fromEntries(
      steady.flatMap((r, i) => [
        [`discordSteady${STEADY_RATES[i]}LagP50Ms`, lagP(r, 50)],
        [`discordSteady${STEADY_RATES[i]}LagP99Ms`, lagP(r, 99)],
      ]),
    ),
  });
  const rows = runs.map((r) => {
    const sorted = [...r.lags].sort((a, b) => a - b);
    return `| ${r.label} | ${Math.round(r.messages / r.seconds).toLocaleString('en')} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${(sorted.at(-1) ?? NaN).toFixed(1)} |`;
  });
  return [
    '### Discord bridge ingest (MESSAGE_CREATE from the fake gateway to committed rows; fake and bridge share one event loop)',
    '',
    '| load | messages/s stored | lag p50 ms | lag p99 ms | lag max ms |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `${stored.toLocaleString('en')} rows stored for ${n.toLocaleString('en')} messages sent. Goal: at least 2,000 msg/s with p99 lag under 100 ms.`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write((await discordBench()) + '\n');
  process.exit(0);
}
