import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { alertIdFromSnowflake } from '../../src/lib/ids.js';
import { bodyOf } from '../helpers/bodies.js';
import { FakeDiscord } from '../helpers/fake-discord/index.js';
import { tempDir } from '../helpers/harness.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { SseClient } from '../helpers/sse-client.js';
import { png } from '../media/fixtures.js';
import { killNode, logged, ownerOfPort, startNode, stopNode, type ClusterNode } from './nodes.js';

// The Discord client in each node reads these; a sharded CI environment must not leak into the nodes.
delete process.env.SHARDS;
delete process.env.SHARD_COUNT;

/**
 * Issue 16's cluster test: three `node dist/main.js` processes on one fresh PostgreSQL database,
 * three loopback ports, one shared MEDIA_DIR, a fake Discord and an SMTP sink, and what a user of
 * the cluster sees when nodes are used interchangeably and when nodes die. The scenarios run in
 * order on the same cluster (the Discord one kills a node and starts a replacement; the e-mail one
 * kills the node mid-send).
 */

const PUBLIC_URL = 'http://alertbridge.test';
const MAIL_FROM = 'Alertbridge <alerts@alertbridge.test>';
const OWNER = 'owner@acme.test';
const MEMBER = 'member@acme.test';

interface Setup {
  token: string;
  revocable: { id: string; token: string };
  hooks: { deploys: string; pager: string; rotating: string };
  rotatingId: string;
  communityId: string;
}

let db: FreshDatabase;
let fake: FakeDiscord;
let seed: ReturnType<FakeDiscord['seedGuild']>;
let sink: SmtpSink;
let mediaDir: string;
let adminDir: string;
let nodeEnv: Record<string, string>;
let setup: Setup;
const nodes: ClusterNode[] = [];
const streams: SseClient[] = [];
let client: pg.Client;

const live = () => nodes.filter((n) => !n.gone);

async function admin(args: string[]): Promise<Record<string, unknown>> {
  const res = await runAdmin(args, { DATA_DIR: adminDir, DATABASE_URL: db.url });
  if (res.code !== 0) throw new Error(`admin ${args.join(' ')}: exit ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as Record<string, unknown>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function post(node: ClusterNode, hook: string, body: unknown): Promise<Response> {
  return fetch(`${node.base}/api/webhook/${hook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function postAlert(node: ClusterNode, hook: string, body: Record<string, unknown>): Promise<string> {
  const res = await post(node, hook, body);
  expect(res.status, `POST to ${node.name}`).toBe(201);
  return (await bodyOf.accepted(res)).alertId;
}

/** The node that holds the Discord gateway: it logged the connection, and the fake sees one session. */
async function gatewayHolder(): Promise<ClusterNode> {
  return eventually(
    () => {
      const holders = live().filter((n) => logged(n, 'Discord bridge connected') > 0);
      return fake.sessionCount === 1 && holders.length === 1 ? holders[0] : undefined;
    },
    'exactly one node holding the Discord gateway',
    { timeoutMs: 15_000, seen: () => ({ sessions: fake.sessionCount, holders: live().map((n) => [n.name, logged(n, 'Discord bridge connected')]) }) },
  );
}

/** Every e-mail job fanned out and every delivery sent (the earlier scenarios' alerts). */
async function outboxSettled(): Promise<void> {
  await eventually(
    async () => {
      const { rows } = await client.query<{ open: string }>(
        `SELECT (SELECT count(*) FROM notification_jobs WHERE state <> 'done') + (SELECT count(*) FROM notification_deliveries WHERE state <> 'sent') AS open`,
      );
      return rows[0]!.open === '0';
    },
    'every e-mail of the earlier alerts sent',
    { timeoutMs: 15_000 },
  );
}

describePg('three nodes on one PostgreSQL database (issue 16)', () => {
  beforeAll(async () => {
    db = await freshDatabase();
    client = new pg.Client({ connectionString: db.url });
    fake = new FakeDiscord();
    await fake.start();
    seed = fake.seedGuild('Ops');
    sink = await SmtpSink.start();
    mediaDir = tempDir('alertbridge-shared-media-');
    adminDir = tempDir('alertbridge-admin-');

    // Set up through the admin CLI against the same DATABASE_URL (it migrates the fresh database).
    const ws = (await admin(['workspace', 'create', '--name', 'Acme'])).id as string;
    for (const [email, role] of [[OWNER, 'owner'], [MEMBER, 'member']] as const) {
      await admin(['user', 'create', '--email', email]);
      await admin(['member', 'add', '--workspace', ws, '--user', email, '--role', role]);
    }
    const channel = (name: string) => admin(['channel', 'create', '--workspace', ws, '--name', name]);
    const deploys = await channel('Deploys');
    const pager = await channel('Pager');
    const rotating = await channel('Rotating');
    const community = await channel('Community');
    await admin(['channel', 'connect-discord', '--channel', community.id as string, '--discord-channel', seed.channel.id]);
    const token = (await admin(['token', 'create', '--workspace', ws, '--user', OWNER, '--name', 'reader'])).token as string;
    const revocable = await admin(['token', 'create', '--workspace', ws, '--user', MEMBER, '--name', 'laptop']);
    setup = {
      token,
      revocable: { id: revocable.id as string, token: revocable.token as string },
      hooks: { deploys: deploys.webhookToken as string, pager: pager.webhookToken as string, rotating: rotating.webhookToken as string },
      rotatingId: rotating.id as string,
      communityId: community.id as string,
    };

    nodeEnv = {
      DATABASE_URL: db.url,
      MEDIA_DIR: mediaDir,
      PUBLIC_URL,
      DISCORD_TOKEN: fake.token,
      DISCORD_API_URL: fake.apiUrl,
      SMTP_URL: sink.url,
      MAIL_FROM,
    };
    nodes.push(...(await Promise.all(['A', 'B', 'C'].map((name) => startNode(name, nodeEnv)))));
    await client.connect();
  }, 120_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    // Whatever the last test did not stop (a failure earlier): no process outlives the file.
    for (const n of live()) n.svc.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.svc.exited));
    await client?.end().catch(() => {});
    await sink?.close();
    await fake?.stop();
    for (const dir of [mediaDir, adminDir, ...nodes.map((n) => n.dataDir)]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  it('post to A, read from B, files served by B and C from the shared media directory; a stream on C gets it, and resumes on B with exactly the missed events', async () => {
    const [A, B, C] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    const onC = await SseClient.open(`${C.base}/api/stream`, { token: setup.token });
    streams.push(onC);
    expect(onC.status).toBe(200);
    await onC.until((c) => c.retry !== undefined, 'the stream to open');

    const image = png(1642);
    const id = await postAlert(A, setup.hooks.deploys, {
      title: 'Deploy api v1.42 failed',
      level: 'error',
      fields: [{ label: 'region', value: 'eu-west' }],
      attachments: [{ data: image.toString('base64'), type: 'image', name: 'error rate' }],
    });

    const page = await bodyOf.page(await fetch(`${B.base}/api/channels/deploys/alerts`, { headers: bearer(setup.token) }));
    expect(page.alerts).toHaveLength(1);
    const alert = page.alerts[0]!;
    expect(alert).toMatchObject({ id, title: 'Deploy api v1.42 failed', level: 'ERROR', fields: [{ label: 'region', value: 'eu-west' }], isRead: false });
    expect(alert.attachments).toHaveLength(1);
    const url = alert.attachments[0]!.url;
    expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/media/[0-9a-f]{64}\\.png$`));
    // Written by A into the shared directory; any node serves it.
    for (const node of [B, C]) {
      const file = await fetch(url.replace(PUBLIC_URL, node.base));
      expect(file.status, node.name).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await file.arrayBuffer()).equals(image)).toBe(true);
    }
    expect(fs.readdirSync(mediaDir).filter((f) => f.endsWith('.png'))).toEqual([path.basename(url)]);

    // The SSE client on C received A's alert.
    await onC.until((c) => c.ofType('alert.created').some((e) => (JSON.parse(e.data) as { id: string }).id === id), `alert.created for ${id} on C`);
    const created = onC.ofType('alert.created');
    expect(created).toHaveLength(1);
    const lastSeen = created[0]!.id!;
    expect(lastSeen).toMatch(/^\d+$/);

    // C's stream drops; two alerts go to A meanwhile; the client reconnects to B (the load balancer's choice) from its last id.
    onC.close();
    const missed = [
      await postAlert(A, setup.hooks.deploys, { title: 'missed 1', level: 'warning' }),
      await postAlert(A, setup.hooks.deploys, { title: 'missed 2', level: 'info' }),
    ];
    const onB = await SseClient.open(`${B.base}/api/stream`, { token: setup.token, lastEventId: lastSeen });
    streams.push(onB);
    expect(onB.status).toBe(200);
    const withIds = () => onB.events.filter((e) => e.id !== undefined);
    await onB.until(() => withIds().length >= 2, 'the two missed events on B');
    // Then live again: one more alert to A reaches the resumed stream on B.
    const after = await postAlert(A, setup.hooks.deploys, { title: 'after the resume', level: 'success' });
    await onB.until(() => withIds().length >= 3, 'the live event after the resume');
    const got = withIds();
    expect(got.map((e) => e.event)).toEqual(['alert.created', 'alert.created', 'alert.created']);
    expect(got.map((e) => (JSON.parse(e.data) as { id: string }).id)).toEqual([...missed, after]);
    const ids = got.map((e) => Number(e.id));
    expect(ids[0]!).toBeGreaterThan(Number(lastSeen));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
    onB.close();
  });

  it('a token revoked through the admin CLI is refused by node A at once; a webhook rotated is refused by node B', async () => {
    const [A, B, C] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    const { revocable } = setup;
    for (const node of [A, B]) expect((await fetch(`${node.base}/api/channels`, { headers: bearer(revocable.token) })).status, node.name).toBe(200);

    expect(await admin(['token', 'revoke', '--id', revocable.id])).toMatchObject({ id: revocable.id, revoked: true });
    // No polling: A's very next request is refused (nothing about tokens is cached in a node).
    for (const node of [A, B, C]) {
      const res = await fetch(`${node.base}/api/channels`, { headers: bearer(revocable.token) });
      expect(res.status, node.name).toBe(401);
      expect((await bodyOf.authFailure(res)).reason).toBe('unknown_token');
    }

    // B has the webhook's channel in its cache (it took a POST); the rotation is committed elsewhere.
    const old = setup.hooks.rotating;
    await postAlert(B, old, { title: 'before the rotation' });
    const rotated = await admin(['channel', 'rotate-webhook', '--channel', setup.rotatingId]);
    const fresh = rotated.webhookToken as string;
    expect(fresh).not.toBe(old);
    // B drops its cache when the COMMIT's notification reaches it (milliseconds; the cache's own TTL is 60 s).
    // Polled with an empty body, so a request that still passed would store nothing (400).
    const started = Date.now();
    await eventually(async () => (await post(B, old, {})).status === 404, 'B refusing the old webhook URL', { timeoutMs: 3_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const node of [A, B, C]) {
      const res = await post(node, old, { title: 'after the rotation' });
      expect(res.status, node.name).toBe(404);
      expect((await bodyOf.problem(res)).title).toBe('invalid webhook token');
    }
    await postAlert(B, fresh, { title: 'through the new URL' });
    const { rows } = await client.query<{ title: string }>('SELECT title FROM alerts WHERE channel_id = $1 ORDER BY created_at', [setup.rotatingId]);
    expect(rows.map((r) => r.title)).toEqual(['before the rotation', 'through the new URL']);
  });

  it('Discord: one node holds the gateway; killed with -9, another takes over within 15 s and backfills what was posted meanwhile, each message stored once', async () => {
    const leader = await gatewayHolder();
    const send = (content: string) => {
      fake.advanceTime(1_000);
      return fake.sendMessage({ channelId: seed.channel.id, authorId: seed.alice.id, content });
    };
    const listFrom = async (node: ClusterNode) =>
      (await bodyOf.chatPage(await fetch(`${node.base}/api/channels/community/alerts?limit=100`, { headers: bearer(setup.token) }))).alerts.reverse();

    // The e-mails of the earlier alerts are out first: killing the leader mid-send is the next scenario's business.
    await outboxSettled();
    const before = send('before the failover');
    const reader = live().find((n) => n !== leader)!;
    await eventually(async () => (await listFrom(reader)).length === 1, 'the live message in the API');

    await killNode(leader);
    await eventually(() => fake.sessionCount === 0, 'the fake Discord to see the gateway gone');
    const killedAt = Date.now();
    // Posted while no node leads: dispatched into the void, only Discord's history has them.
    const meanwhile = [send('while no node leads 1'), send('while no node leads 2'), send('while no node leads 3')];
    expect(fake.sessionCount).toBe(0);

    const next = await gatewayHolder();
    expect(next).not.toBe(leader);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    const liveAgain = send('after the takeover');

    const expected = [before, ...meanwhile, liveAgain];
    for (const node of live()) {
      const msgs = await eventually(
        async () => {
          const list = await listFrom(node);
          return list.length >= expected.length ? list : undefined;
        },
        `${expected.length} messages on ${node.name}`,
        { timeoutMs: 10_000 },
      );
      expect(msgs.map((m) => m.message)).toEqual(expected.map((m) => m.content));
      expect(msgs.map((m) => m.id)).toEqual(expected.map((m) => alertIdFromSnowflake(m.id)));
    }
    // Stored rows: one per Discord message, under the id derived from it (the primary key that makes an overlap harmless).
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM alerts WHERE channel_id = $1 ORDER BY id`, [setup.communityId]);
    expect(rows.map((r) => r.id)).toEqual(expected.map((m) => alertIdFromSnowflake(m.id)));

    // A replacement node joins: it does not take the gateway, and it leaves the shared media
    // directory's fresh temp files alone (they may be another node's upload in progress).
    const upload = path.join(mediaDir, '.tmp-4242-inflight');
    fs.writeFileSync(upload, 'half an upload');
    nodes.push(await startNode('D', nodeEnv));
    expect(fs.existsSync(upload)).toBe(true);
    fs.rmSync(upload);
    expect(fake.sessionCount).toBe(1);
    expect(logged(nodes.at(-1)!, 'Discord bridge connected')).toBe(0);
  }, 60_000);

  it('a node killed -9 mid-e-mail: no e-mail is sent twice for one (alert, recipient); within the lease the row stays leased, after it the row is recorded failed and not resent', async () => {
    // Every e-mail of the earlier scenarios went out first (4 alerts on #deploys, 2 on #rotating, 2 recipients each).
    const titles = ['Deploy api v1.42 failed', 'missed 1', 'missed 2', 'after the resume', 'before the rotation', 'through the new URL'];
    await eventually(() => titles.every((t) => sink.messages.filter((m) => m.acknowledged && m.subject.includes(t)).length === 2), 'the earlier e-mails', {
      timeoutMs: 15_000,
      seen: () => sink.messages.map((m) => [m.subject, m.rcpt, m.acknowledged]),
    });

    sink.hold();
    const [first] = live();
    const crashed = await postAlert(first!, setup.hooks.pager, { title: 'Disk full on db-1', level: 'error' });
    const held = await eventually(
      () => {
        const m = sink.messages.filter((x) => x.subject.includes('Disk full on db-1'));
        return m.length === 2 ? m : undefined;
      },
      'both e-mails of the alert held mid-DATA',
      { timeoutMs: 10_000 },
    );
    const senders = new Set(held.map((m) => ownerOfPort(m.clientPort, live())));
    expect(senders.has(undefined), 'the node holding each SMTP conversation').toBe(false);
    for (const sender of senders) await killNode(sender!);
    // The sink sees the conversations cut before it could say 250: nothing was delivered.
    await eventually(() => sink.holding === 0, 'the sink to see the senders gone');
    sink.release();

    const deliveries = async (alertId: string) =>
      (
        await client.query<{ user: string; state: string; last_error: string | null }>(
          `SELECT u.email AS user, d.state, d.last_error FROM notification_deliveries d JOIN users u ON u.id = d.user_id WHERE d.alert_id = $1 ORDER BY u.email`,
          [alertId],
        )
      ).rows;
    expect((await deliveries(crashed)).map((d) => [d.user, d.state])).toEqual([
      [MEMBER, 'sending'],
      [OWNER, 'sending'],
    ]);

    // The surviving nodes keep sending: the next alert's e-mails arrive...
    const survivors = live();
    expect(survivors.length).toBeGreaterThan(0);
    const second = await postAlert(survivors[0]!, setup.hooks.pager, { title: 'Disk usage back to 70 %', level: 'success' });
    await eventually(() => sink.messages.filter((m) => m.acknowledged && m.subject.includes('Disk usage back')).length === 2, 'the next alert e-mailed by a survivor', {
      timeoutMs: 10_000,
    });
    await eventually(async () => (await deliveries(second)).every((d) => d.state === 'sent'), 'the rows marked sent after the 250');
    expect(await deliveries(second)).toHaveLength(2);
    // ...but within the 30-minute send lease nobody touches the interrupted rows: they may be in a
    // live node's conversation, and the SMTP server may have accepted them.
    expect((await deliveries(crashed)).map((d) => d.state)).toEqual(['sending', 'sending']);

    // Past the lease (its claim time moved back 31 minutes rather than waiting them out), the next
    // recovery (at a node's start, and at every prune pass) records the rows failed; nothing resends them.
    await client.query(`UPDATE notification_deliveries SET updated_at = updated_at - 31 * 60 * 1000 WHERE alert_id = $1 AND state = 'sending'`, [crashed]);
    nodes.push(await startNode('E', nodeEnv));
    const recovered = await eventually(
      async () => {
        const rows = await deliveries(crashed);
        return rows.every((d) => d.state === 'failed') ? rows : undefined;
      },
      'the interrupted rows recorded failed',
      { timeoutMs: 10_000 },
    );
    for (const row of recovered) expect(row.last_error).toMatch(/^interrupted mid-send/);
    const third = await postAlert(nodes.at(-1)!, setup.hooks.pager, { title: 'All clear', level: 'info' });
    await eventually(() => sink.messages.filter((m) => m.acknowledged && m.subject.includes('All clear')).length === 2, 'the third alert e-mailed', { timeoutMs: 10_000 });
    await eventually(async () => (await deliveries(third)).every((d) => d.state === 'sent'), 'the rows marked sent after the 250');
    expect(await deliveries(third)).toHaveLength(2);

    // The count per (alert, recipient) across every node: never two; none for the interrupted alert.
    const delivered = new Map<string, number>();
    for (const m of sink.messages.filter((x) => x.acknowledged)) {
      const key = `${m.subject} → ${m.rcpt.join(',')}`;
      delivered.set(key, (delivered.get(key) ?? 0) + 1);
    }
    expect([...delivered.values()].every((n) => n === 1), JSON.stringify([...delivered])).toBe(true);
    expect([...delivered.keys()].filter((k) => k.includes('Disk full on db-1'))).toEqual([]);
    expect(delivered.size).toBe(2 * (titles.length + 2));
  }, 60_000);

  it('every node still running stops on SIGTERM with exit 0, and leaves no connection behind', async () => {
    const running = live();
    expect(running.length).toBeGreaterThanOrEqual(2);
    expect(await Promise.all(running.map((n) => stopNode(n)))).toEqual(running.map(() => 0));
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    expect(Number(rows[0]!.n)).toBe(0);
  }, 30_000);
});
