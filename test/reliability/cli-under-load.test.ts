import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';
import { runAdminProcess, startService, type SpawnedService } from '../helpers/spawned-service.js';

const CONNECTIONS = 16;

let service: SpawnedService | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  service = undefined;
  dir = undefined;
});

const admin = async (args: string[]) => {
  const r = await runAdminProcess(dir!, args);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe('admin CLI writes while webhooks pour in', () => {
  it(`token create and channel create all succeed beside ${CONNECTIONS} posting connections; no request fails with "database is locked"`, async () => {
    dir = tempDir('alertbridge-cli-load-');
    const ws = (await admin(['workspace', 'create', '--name', 'Acme'])) as { id: string };
    await admin(['user', 'create', '--email', 'ops@acme.test']);
    await admin(['member', 'add', '--workspace', ws.id, '--user', 'ops@acme.test', '--role', 'owner']);
    const hook = (await admin(['channel', 'create', '--workspace', ws.id, '--name', 'Load'])) as { webhookToken: string };
    // The webhook limit (6,000 a minute by default) is not what this test is about: a quiet machine posts faster than that.
    service = await startService(dir, { WEBHOOK_RATE_LIMIT_PER_MINUTE: '10000000' });
    const url = `${service.base}/api/webhook/${hook.webhookToken}`;

    const statuses = new Map<number, number>();
    let posting = true;
    const poster = async (n: number) => {
      for (let i = 0; posting; i++) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `load ${n}-${i}` }) });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        } catch {
          // A connection the server dropped counts as a failed request (status 0), and this poster stops.
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
          return;
        }
      }
    };
    const posters = Array.from({ length: CONNECTIONS }, (_, n) => poster(n));
    await expect.poll(() => statuses.get(201) ?? 0, { timeout: 15_000 }).toBeGreaterThan(200);

    // Each CLI call is its own process with its own connection, committing while the server's group commit writes.
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const token = (await admin(['token', 'create', '--workspace', ws.id, '--user', 'ops@acme.test', '--name', `ci-${i}`])) as { token: string };
      expect(token.token).toMatch(/^ab_[0-9a-f]{48}$/);
      const ch = (await admin(['channel', 'create', '--workspace', ws.id, '--name', `Under load ${i}`])) as { slug: string };
      created.push(ch.slug);
    }
    posting = false;
    await Promise.all(posters);

    // Every webhook request was stored (201); none was refused or failed while the CLI wrote.
    expect([...statuses.keys()]).toEqual([201]);
    // The server sees what the CLI wrote at once: a new token reads, the new channels are listed.
    const token = (await admin(['token', 'create', '--workspace', ws.id, '--user', 'ops@acme.test'])) as { token: string };
    const res = await fetch(`${service.base}/api/channels`, { headers: { authorization: `Bearer ${token.token}` } });
    expect(res.status).toBe(200);
    const slugs = ((await res.json()) as { slug: string }[]).map((c) => c.slug);
    expect(slugs).toEqual(expect.arrayContaining(created));
    expect(service.output()).not.toMatch(/database is locked|SQLITE_BUSY/);
    // Sixteen admin processes beside sixteen saturating posters on two cores: each process start can take seconds on a busy machine.
  }, 120_000);
});
