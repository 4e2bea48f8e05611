import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgNotifyBus, TOPICS } from '../../src/db/pg/notify-bus.js';
import { PgWebhookWrites } from '../../src/db/pg/alert-store/webhook-writes.js';
import { inTransaction } from '../../src/db/pg/transaction.js';
import { eventually } from '../helpers/poll.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

/**
 * The cross-node notification bus: what node A publishes in a transaction reaches node B at
 * COMMIT (never on ROLLBACK), and a node whose listening connection drops reconnects, says so,
 * and hears again.
 */
describePg('notifications between the nodes of a cluster', () => {
  let fresh: FreshDatabase;
  let nodeA: PgDb;
  let nodeB: PgDb;
  const buses: PgNotifyBus[] = [];
  beforeAll(async () => {
    fresh = await freshDatabase();
    nodeA = await openPg(fresh.url);
    nodeB = await openPg(fresh.url, { migrate: false });
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.stop()));
    await nodeA.close();
    await nodeB.close();
    await fresh.drop();
  });

  const bus = (db: PgDb) => {
    const b = new PgNotifyBus({ url: fresh.url, pool: db.pool, reconnectMs: 50 });
    buses.push(b);
    return b;
  };
  /** Every message a bus delivers on the topics, as `topic:payload`, and its lost/resumed calls. */
  const record = (b: PgNotifyBus, topics: string[]) => {
    const log: string[] = [];
    for (const t of topics) b.subscribe(t, { message: (p) => log.push(`${t}:${p}`), lost: () => log.push(`lost ${t}`), resumed: () => log.push(`resumed ${t}`) });
    return log;
  };

  it('a notification published inside a transaction reaches every node at COMMIT, and none on ROLLBACK', async () => {
    const [a, b] = [bus(nodeA), bus(nodeB)];
    const onA = record(a, [TOPICS.alertEvents, 'probe']);
    const onB = record(b, [TOPICS.alertEvents, 'probe']);
    await Promise.all([a.start(), b.start()]);
    expect(onB).toEqual([`resumed ${TOPICS.alertEvents}`, 'resumed probe']);

    await inTransaction(nodeA.pool, async (tx) => {
      await a.publish(TOPICS.alertEvents, '41', tx);
      // A notification committed meanwhile by someone else arrives; the transaction's does not.
      await a.publish('probe', 'outside');
      await eventually(() => onB.includes('probe:outside'), 'the probe on node B', { seen: () => onB });
      expect(onB).not.toContain(`${TOPICS.alertEvents}:41`);
    });
    await eventually(() => onB.includes(`${TOPICS.alertEvents}:41`), 'the committed notification on node B', { seen: () => onB });
    // The publishing node hears its own notification too (its listener is another session).
    await eventually(() => onA.includes(`${TOPICS.alertEvents}:41`), 'the committed notification on node A', { seen: () => onA });

    await expect(
      inTransaction(nodeA.pool, async (tx) => {
        await a.publish(TOPICS.alertEvents, '42', tx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await a.publish('probe', 'after rollback');
    await eventually(() => onB.includes('probe:after rollback'), 'the second probe on node B', { seen: () => onB });
    expect(onB.filter((m) => m.startsWith(`${TOPICS.alertEvents}:`))).toEqual([`${TOPICS.alertEvents}:41`]);
  });

  it('a dropped listening connection is reported, reconnected, and heard on again', async () => {
    const [a, b] = [bus(nodeA), bus(nodeB)];
    const onB = record(b, [TOPICS.webhookChannels]);
    await Promise.all([a.start(), b.start()]);
    await a.publish(TOPICS.webhookChannels, 'before');
    await eventually(() => onB.includes(`${TOPICS.webhookChannels}:before`), 'the first notification', { seen: () => onB });
    const pid = b.backendPid;
    expect(pid).toBeDefined();

    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    await eventually(() => onB.includes(`lost ${TOPICS.webhookChannels}`), 'node B to notice the lost connection', { seen: () => onB });
    await eventually(() => b.isListening(TOPICS.webhookChannels), 'node B to listen again', { seen: () => onB });
    expect(b.backendPid).not.toBe(pid);
    await a.publish(TOPICS.webhookChannels, 'after');
    await eventually(() => onB.includes(`${TOPICS.webhookChannels}:after`), 'a notification after the reconnection', { seen: () => onB });
    expect(onB).toEqual([
      `resumed ${TOPICS.webhookChannels}`,
      `${TOPICS.webhookChannels}:before`,
      `lost ${TOPICS.webhookChannels}`,
      `resumed ${TOPICS.webhookChannels}`,
      `${TOPICS.webhookChannels}:after`,
    ]);
  });

  it('a subscriber that throws does not keep the others from hearing, and a topic subscribed late is listened to', async () => {
    const [a, b] = [bus(nodeA), bus(nodeB)];
    await Promise.all([a.start(), b.start()]);
    const heard: string[] = [];
    b.subscribe('late', {
      message: () => {
        throw new Error('subscriber bug');
      },
    });
    b.subscribe('late', { message: (p) => heard.push(p) });
    await eventually(() => b.isListening('late'), 'the late topic to be listened to');
    await a.publish('late', 'one');
    await a.publish('late', 'two');
    await eventually(() => heard.length === 2, 'both notifications', { seen: () => heard });
    expect(heard).toEqual(['one', 'two']);
    await expect(a.publish('late', 'x'.repeat(8_000))).rejects.toThrow(/payload/);
  });

  it('a server it cannot reach leaves the node not listening (and retrying) without failing the process', async () => {
    const url = new URL(fresh.url);
    url.port = '1';
    const unreachable = new PgNotifyBus({ url: url.toString(), pool: nodeA.pool, reconnectMs: 20 });
    const log: string[] = [];
    unreachable.subscribe('probe', { message: () => log.push('message'), resumed: () => log.push('resumed') });
    await unreachable.start();
    expect(unreachable.isListening('probe')).toBe(false);
    expect(unreachable.backendPid).toBeUndefined();
    await unreachable.stop();
    expect(log).toEqual([]);
  });

  it('an alert written through the webhook\'s store on one node wakes the other node\'s streams at COMMIT, a failed write does not', async () => {
    const [a, b] = [bus(nodeA), bus(nodeB)];
    const onB = record(b, [TOPICS.alertEvents]);
    await Promise.all([a.start(), b.start()]);
    await nodeA.pool.query(`INSERT INTO workspaces (id, name, created_at) VALUES ('w1', 'W', 1) ON CONFLICT DO NOTHING`);
    await nodeA.pool.query(`INSERT INTO channels (id, workspace_id, name, slug, icon, webhook_token, created_at) VALUES ('c1', 'w1', 'C', 'c', 'x', 'tok', 1) ON CONFLICT DO NOTHING`);
    const writes = new PgWebhookWrites(nodeA.pool);
    const alert = (id: string) => ({
      alertId: id, channelId: 'c1', workspaceId: 'w1', attachments: [], notify: 'alert.created' as const, now: 1,
      content: { title: 't', level: 'INFO' as const, emoji: '', message: null, fieldsJson: '[]', linkUrl: null, linkText: null, source: null,
        actorJson: null, workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null, metadataJson: null },
    });
    await writes.insertAlert(alert('alt_bus_1'));
    await eventually(() => onB.includes(`${TOPICS.alertEvents}:`), 'the wake-up on node B', { seen: () => onB });
    onB.length = 0;
    // The same id again: the unit fails on the primary key and rolls back, so nobody is woken.
    await expect(writes.insertAlert(alert('alt_bus_1'))).rejects.toThrow();
    b.subscribe('probe', { message: (p) => onB.push(`probe:${p}`) });
    await eventually(() => b.isListening('probe'), 'node B listening to the probe');
    await a.publish('probe', 'after');
    await eventually(() => onB.includes('probe:after'), 'the probe sent after the failed write', { seen: () => onB });
    expect(onB).not.toContain(`${TOPICS.alertEvents}:`);
  });
});
