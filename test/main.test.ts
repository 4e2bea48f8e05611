import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from './helpers/bodies.js';
import { tempDir } from './helpers/harness.js';
import { logLines, spawnService, type SpawnedService } from './helpers/spawned-service.js';

let svc: SpawnedService | undefined;
let dir: string;
afterEach(() => {
  svc?.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

// What `npm start` runs (its prestart builds dist/; test/global-setup.ts does here).
async function start(env: Record<string, string>) {
  svc = await spawnService(env, { dataDir: dir });
  return svc;
}

async function stop(s: SpawnedService) {
  s.child.kill('SIGTERM');
  return s.exited;
}

describe('npm start', () => {
  it('bootstraps an empty DATA_DIR once, prints working curls, serves /healthz and stops on SIGTERM', async () => {
    dir = tempDir();
    const first = await start({});
    const out = first.output();
    const token = first.apiToken;
    const webhook = first.webhookUrl;
    expect(token).toBeDefined();
    expect(webhook).toContain('/api/webhook/whk_');
    // stdout is a pipe, not a terminal: the banner is in DATA_DIR/first-start.txt, stdout names the file only.
    const banner = fs.readFileSync(first.bannerFile!, 'utf8');
    expect(banner).toContain('curl -X POST');
    expect(out).not.toContain(token!);
    // The log lines (JSON) carry no secret.
    const lines = logLines(out);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(token!);
      expect(line).not.toContain(webhook!.split('/').pop()!);
    }
    expect(banner).toMatch(/Webhook URL\s+http:\/\/localhost:\d+\/api\/webhook\/whk_/);
    const post = await fetch(webhook!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello from Alertbridge', level: 'success', emoji: 'rocket' }),
    });
    expect(post.status).toBe(201);
    const list = await fetch(`${first.base}/api/channels/general/alerts`, { headers: { authorization: `Bearer ${token}` } });
    expect((await bodyOf.page(list)).alerts[0]?.title).toBe('Hello from Alertbridge');
    expect(await stop(first)).toBe(0);

    const second = await start({});
    expect(second.output()).not.toContain('API token');
    await stop(second);
    expect(fs.existsSync(`${dir}/alertbridge.db`)).toBe(true);
  });

  it('BOOTSTRAP=0 starts empty', async () => {
    dir = tempDir();
    const s = await start({ BOOTSTRAP: '0' });
    expect(s.output()).not.toContain('API token');
    await stop(s);
  });
});
