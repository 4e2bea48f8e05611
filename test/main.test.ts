import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/harness.js';
import { eventually } from './helpers/poll.js';
import { healthy } from './reliability/process.js';

let child: ChildProcess | undefined;
let dir: string;
afterEach(() => {
  child?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

async function start(env: Record<string, string>) {
  const port = await freePort();
  let out = '';
  // What `npm start` runs (its prestart builds dist/; test/global-setup.ts does here).
  child = spawn(process.execPath, ['dist/main.js'], {
    env: { PATH: process.env.PATH, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', AVATAR_BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const up = await eventually(() => healthy(base), 'the service to answer /healthz', { timeoutMs: 20_000 }).catch(() => false);
  if (!up) throw new Error(`service did not start:\n${out}`);
  return { base, output: () => out, child: child! };
}

async function stop(c: ChildProcess) {
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  return exited;
}

describe('npm start', () => {
  it('bootstraps an empty DATA_DIR once, prints working curls, serves /healthz and stops on SIGTERM', async () => {
    dir = tempDir();
    const first = await start({});
    const out = first.output();
    const token = /API token\s+(ab_[0-9a-f]{48})/.exec(out)?.[1];
    const webhook = /Webhook URL\s+(\S+)/.exec(out)?.[1];
    expect(token).toBeDefined();
    expect(webhook).toContain('/api/webhook/whk_');
    expect(out).toContain("curl -X POST");
    // The log lines (JSON) carry no secret.
    const logLines = out.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).not.toContain(token!);
      expect(line).not.toContain(webhook!.split('/').pop()!);
    }
    const port = new URL(first.base).port;
    const post = await fetch(webhook!.replace(/localhost:\d+/, `127.0.0.1:${port}`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello from Alertbridge', level: 'success', emoji: 'rocket' }),
    });
    expect(post.status).toBe(201);
    const list = await fetch(`${first.base}/api/channels/general/alerts`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await list.json()) as any).alerts[0].title).toBe('Hello from Alertbridge');
    expect(await stop(first.child)).toBe(0);

    const second = await start({});
    expect(second.output()).not.toContain('API token');
    await stop(second.child);
    expect(fs.existsSync(`${dir}/alertbridge.db`)).toBe(true);
  });

  it('BOOTSTRAP=0 starts empty', async () => {
    dir = tempDir();
    const s = await start({ BOOTSTRAP: '0' });
    expect(s.output()).not.toContain('API token');
    await stop(s.child);
  });
});
