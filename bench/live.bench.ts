import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { loadConfig } from '../src/config.js';
import { SqlSignInLinkRows } from '../src/db/shared/auth-rows.js';
import { SqliteExecutor } from '../src/db/sqlite/executor.js';
import { SignInLinks } from '../src/domain/auth/sign-in-links.js';
import { createApp } from '../src/http/app.js';
import { openServices, sqliteServicesOf } from '../src/services.js';
import { ms, summarize } from './lib.js';
import { emitResult, QUICK } from './lib/result.js';

/**
 * Live latency (`npm run bench -- live`): how long after a webhook POST is sent
 * the dashboard's card reaches a signed-in browser's stream (`GET /feed/stream`,
 * the card rendered into a `card` event), over real HTTP on loopback. Baseline
 * in the same run: the same POST's `alert.created` on the read API's stream
 * (`GET /api/stream`, Bearer), which skips the card rendering, and the POST's
 * own round trip (201 after COMMIT). One alert at a time, both streams open,
 * so every figure is the latency of one alert through an idle service.
 */
const N = Number(process.env.BENCH_ITER ?? (QUICK ? 40 : 400));
const PUBLIC_URL = 'http://bench.local';

/** Reads an SSE response, calling `onEvent(name, data)` for each event until aborted. */
async function readEvents(res: Response, onEvent: (event: string, data: string) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done) return;
    buf += value;
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      onEvent(event, data.join('\n'));
    }
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-bench-live-'));
  const s = sqliteServicesOf(await openServices(
    loadConfig({ DATA_DIR: dir, PUBLIC_URL, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' }),
  ));
  const app = createApp(s);
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;
  const abort = new AbortController();
  try {
    const ws = await s.accounts.createWorkspace('Bench');
    const user = await s.accounts.createUser('bench@example.com', 'Bench User');
    await s.accounts.addMember(ws.id, user.id, 'owner');
    const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'Deploys', icon: '🚀' });
    const { token } = await s.accounts.createToken(ws.id, user.id);
    const link = (await new SignInLinks(new SqlSignInLinkRows(new SqliteExecutor(s.db.sqlite)), s.clock).issue(user.id)).secret;
    const signIn = await fetch(`${base}/auth/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ t: link }).toString(),
    });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
    if (signIn.status !== 303 || !cookie) throw new Error(`sign-in ${signIn.status}`);

    // Arrival times by alert id, per stream.
    const cardAt = new Map<string, number>();
    const apiAt = new Map<string, number>();
    const feed = await fetch(`${base}/feed/stream`, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal });
    const api = await fetch(`${base}/api/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
    if (feed.status !== 200 || api.status !== 200) throw new Error(`streams: feed ${feed.status}, api ${api.status}`);
    void readEvents(feed, (event, data) => {
      if (event !== 'card') return;
      const card = JSON.parse(data) as { id: string; type: string; html: string | null };
      if (card.type === 'alert.created' && card.html) cardAt.set(card.id, performance.now());
    });
    void readEvents(api, (event, data) => {
      if (event === 'alert.created') apiAt.set((JSON.parse(data) as { id: string }).id, performance.now());
    });

    const until = async (done: () => boolean) => {
      const limit = performance.now() + 5_000;
      while (!done()) {
        if (performance.now() > limit) throw new Error('an event did not arrive within 5 s');
        await new Promise((r) => setImmediate(r));
      }
    };
    const card: number[] = [];
    const apiEvent: number[] = [];
    const post: number[] = [];
    for (let i = 0; i < N + 20; i++) {
      const sent = performance.now();
      const res = await fetch(`${base}/api/webhook/${channel.webhookToken}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Deploy ${i}`, level: 'success', message: 'Rolled out to every region.', fields: [{ name: 'version', value: `v${i}`, inline: true }] }),
      });
      const answered = performance.now();
      if (res.status !== 201) throw new Error(`webhook ${res.status}`);
      const { alertId } = (await res.json()) as { alertId: string };
      await until(() => cardAt.has(alertId) && apiAt.has(alertId));
      if (i < 20) continue; // warm-up
      post.push(answered - sent);
      card.push(cardAt.get(alertId)! - sent);
      apiEvent.push(apiAt.get(alertId)! - sent);
    }
    const [c, a, p] = [card, apiEvent, post].map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>];
    console.log(`### Live latency: webhook POST → event on an open stream (${N} alerts, one at a time, loopback HTTP)\n`);
    console.log('| measured from the POST being sent | p50 | p99 |\n|---|---|---|');
    console.log(`| baseline: the POST's 201 (after COMMIT) | ${ms(p.p50)} | ${ms(p.p99)} |`);
    console.log(`| baseline: \`alert.created\` on \`GET /api/stream\` | ${ms(a.p50)} | ${ms(a.p99)} |`);
    console.log(`| **the card on the dashboard's \`GET /feed/stream\`** | **${ms(c.p50)}** | **${ms(c.p99)}** |\n`);
    emitResult({ liveCardP50Ms: c.p50, liveCardP99Ms: c.p99, liveApiEventP99Ms: a.p99, livePostP99Ms: p.p99 });
  } finally {
    abort.abort();
    s.live.closeAll();
    server.close();
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
