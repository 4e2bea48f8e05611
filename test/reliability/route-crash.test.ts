import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/services.js';
import { seedWorkspace, tempDir } from '../helpers/harness.js';
import { readRows } from '../helpers/other-connection.js';
import { eventually } from '../helpers/poll.js';
import { startService, type SpawnedService } from '../helpers/spawned-service.js';

/**
 * Issue 27: kill -9 of the real service in the middle of route deliveries. The receiver answers the
 * first requests and leaves the next ones hanging (the service is mid-request when it dies); after a
 * restart on the same DATA_DIR every delivery arrives, each at most twice, and a repeat carries the
 * same webhook-id (and a valid signature) so the receiver can drop it. SQLite: a restart takes back
 * every row left `sending` at once; on PostgreSQL the lease does, which test/cluster/route-nodes covers.
 */
const ALERTS = 12;
/** Requests answered before the receiver starts leaving them hanging. */
const ANSWERED_FIRST = 4;

let dir: string;
let service: SpawnedService | undefined;
const hanging: http.ServerResponse[] = [];
let server: http.Server | undefined;

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Got {
  webhookId: string;
  title: string;
  answered: boolean;
  body: string;
  headers: Record<string, string>;
}

describe('route deliveries across kill -9', () => {
  it('resend at most once, with the same webhook-id, and lose none', { timeout: 120_000 }, async () => {
    const received: Got[] = [];
    let hold = true;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
        const got: Got = { webhookId: headers['webhook-id'], title: String((JSON.parse(body) as { title: string }).title), answered: false, body, headers };
        received.push(got);
        // Past the first few, the first process never gets an answer: it dies mid-request.
        if (hold && received.length > ANSWERED_FIRST) return void hanging.push(res);
        got.answered = true;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    dir = tempDir('alertbridge-route-crash-');
    const env = { ROUTES_ALLOW_PRIVATE: '1' };
    const s = await openServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', ...env }));
    const seed = await seedWorkspace(s);
    // The route's secret, sealed under DATA_DIR/secrets.key, outlives the processes.
    const { secret } = await s.routes.routes.create(seed.general.id, 'webhook', { url: receiverUrl }, { ratePerMinute: 600 });
    await s.close();

    service = await startService(dir, env);
    for (let i = 0; i < ALERTS; i++) {
      const res = await fetch(`${service.base}/api/webhook/${seed.general.webhookToken}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `crash ${i}`, level: 'error' }),
      });
      expect(res.status).toBe(201);
    }
    // Some answered, some hanging: the process is in the middle of its deliveries.
    await eventually(() => (received.length > ANSWERED_FIRST + 1 ? true : undefined), 'hanging requests', { timeoutMs: 30_000 });
    service.child.kill('SIGKILL');
    await service.exited;
    const db = { dbFile: path.join(dir, 'alertbridge.db') };
    // What the dead process left mid-request: rows still `sending` (webhook-id msg_rd<id>).
    const cutOff = new Set((await readRows<{ id: number }>(db, "SELECT id FROM route_deliveries WHERE state = 'sending'")).map((r) => `msg_rd${r.id}`));
    // Received but never answered: the requests the process died in. (A row claimed a moment before
    // the kill may not have reached the receiver at all; it is cut off too, and sent once.)
    const hung = new Set(received.filter((g) => !g.answered).map((g) => g.webhookId));
    for (const res of hanging.splice(0)) res.destroy();
    hold = false;

    service = await startService(dir, env);
    const rows = () => readRows<{ state: string }>(db, 'SELECT state FROM route_deliveries');
    await eventually(async () => ((await rows()).length === ALERTS && (await rows()).every((r) => r.state === 'sent') ? true : undefined), 'every delivery sent', { timeoutMs: 60_000 });

    // Every alert reached the receiver with an answer; none more than twice; a repeat is the same id and body, signed.
    const titles = new Set(received.filter((g) => g.answered).map((g) => g.title));
    expect(titles.size).toBe(ALERTS);
    const byId = new Map<string, Got[]>();
    for (const g of received) byId.set(g.webhookId, [...(byId.get(g.webhookId) ?? []), g]);
    expect(byId.size).toBe(ALERTS);
    for (const [id, copies] of byId) {
      expect(copies.length, id).toBeLessThanOrEqual(2);
      if (copies.length === 2) {
        expect(cutOff.has(id), `${id} was resent without having been cut off`).toBe(true);
        expect(copies[1]!.title).toBe(copies[0]!.title);
      }
      for (const c of copies) expect(() => new Webhook(secret!).verify(c.body, c.headers)).not.toThrow();
    }
    expect(hung.size).toBeGreaterThan(0);
    for (const id of hung) {
      expect(cutOff.has(id), `${id} hung, so it was left sending`).toBe(true);
      expect(byId.get(id)?.length, `${id} hung, so it was sent again`).toBe(2);
    }
  });
});
