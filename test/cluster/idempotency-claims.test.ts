import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgIdempotencyClaims } from '../../src/db/pg/alert-store/idempotency-claims.js';
import { PgWebhookWrites } from '../../src/db/pg/alert-store/webhook-writes.js';
import { Idempotency } from '../../src/domain/idempotency.js';
import { ManualClock } from '../../src/lib/clock.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';
import { pgEngine, type Fixture } from './engines.js';

/**
 * Idempotency-Key claims across nodes on PostgreSQL, with the answers of the in-memory claims of
 * src/domain/idempotency.ts on one SQLite node: a key in flight anywhere is refused at once with
 * idempotency-key-in-use (409); after the first request committed and released, the key's stored
 * answer is there to replay; a node that dies takes its claims with it.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['channels', [{ id: 'ch1', workspace_id: 'w1', name: 'Deploys', slug: 'deploys', icon: '🚀', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
];
const NOW = Date.UTC(2026, 10, 20, 12);

describePg('Idempotency-Key claims across nodes (PostgreSQL)', () => {
  let e: Awaited<ReturnType<typeof pgEngine>>;
  let nodeA: PgIdempotencyClaims;
  let nodeB: PgIdempotencyClaims;
  beforeAll(async () => {
    e = await pgEngine(FIXTURE);
    nodeA = new PgIdempotencyClaims(e.url);
    nodeB = new PgIdempotencyClaims(e.url);
  });
  afterAll(async () => {
    await nodeA.close();
    await nodeB.close();
    await e.close();
  });

  it('refuses a key in flight on this node or another with 409, and hands it over once released after the commit', async () => {
    const a = await nodeA.claim('ch1', 'deploy-42');
    await expect(nodeB.claim('ch1', 'deploy-42')).rejects.toMatchObject({ code: 'idempotency-key-in-use' });
    await expect(nodeA.claim('ch1', 'deploy-42')).rejects.toMatchObject({ code: 'idempotency-key-in-use' });
    // Other keys and the same key in another channel are free.
    await (await nodeB.claim('ch1', 'deploy-43')).release();
    await (await nodeB.claim('ch2', 'deploy-42')).release();

    await new PgWebhookWrites(e.db.pool).insertAlert({
      alertId: 'alt_01', channelId: 'ch1', workspaceId: 'w1', attachments: [], notify: 'alert.created', now: NOW,
      content: { title: 't', level: 'INFO', emoji: '', message: null, fieldsJson: '[]', linkUrl: null, linkText: null, source: null,
        actorJson: null, workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null, metadataJson: null },
      idempotency: { key: 'deploy-42', hash: 'h', answer: (s) => ({ id: s.alertId }) },
    });
    await a.release();
    const b = await nodeB.claim('ch1', 'deploy-42');
    expect(await new PgWebhookWrites(e.other.pool).idempotentAnswer('ch1', 'deploy-42')).toMatchObject({ json: '{"id":"alt_01"}' });
    await b.release();
    await b.release();
    await (await nodeA.claim('ch1', 'deploy-42')).release();
  });

  it('through the real Idempotency on two nodes: 409 while in flight elsewhere, the stored answer replayed after', async () => {
    const clock = new ManualClock(NOW + 1000);
    const onA = new Idempotency(new PgWebhookWrites(e.db.pool), clock, nodeA);
    const onB = new Idempotency(new PgWebhookWrites(e.other.pool), clock, nodeB);
    const first = await onA.begin('ch1', 'release-7', 'hash-7');
    if (!('release' in first)) throw new Error('a fresh key was answered from the store');
    await expect(onB.begin('ch1', 'release-7', 'hash-7')).rejects.toMatchObject({ code: 'idempotency-key-in-use' });
    await new PgWebhookWrites(e.db.pool).insertAlert({
      alertId: 'alt_07', channelId: 'ch1', workspaceId: 'w1', attachments: [], notify: 'alert.created', now: NOW,
      content: { title: 't', level: 'INFO', emoji: '', message: null, fieldsJson: '[]', linkUrl: null, linkText: null, source: null,
        actorJson: null, workflowRunId: null, workflowState: null, workflowStepsJson: null, workflowError: null, dedupKey: null, metadataJson: null },
      idempotency: { key: 'release-7', hash: 'hash-7', answer: (s) => ({ id: s.alertId }) },
    });
    await first.release();
    expect(await onB.begin('ch1', 'release-7', 'hash-7')).toEqual({ replayJson: '{"id":"alt_07"}' });
    await expect(onB.begin('ch1', 'release-7', 'another body')).rejects.toMatchObject({ code: 'idempotency-key-reused' });
    // A refused request holds nothing: the key is free on both nodes afterwards.
    expect(await onA.begin('ch1', 'release-7', 'hash-7')).toEqual({ replayJson: '{"id":"alt_07"}' });
  });

  it('releases every claim of a node whose session ends, and the node claims again on a new session', async () => {
    await nodeA.claim('ch1', 'k-dead');
    await expect(nodeB.claim('ch1', 'k-dead')).rejects.toMatchObject({ code: 'idempotency-key-in-use' });
    // The node's dedicated session is terminated (a node killed, or its connection cut).
    // Only this test's database: advisory locks carry their database, and other test files on the
    // same server (migrations, leader elections) hold locks in the same key range.
    await e.exec(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = ?)`, [0x414c4252]);
    // The server releases the locks once the terminated backend has exited.
    const b = await eventually(() => nodeB.claim('ch1', 'k-dead').catch(() => undefined), 'the dead session\'s claim released');
    await b.release();
    // Node A's own record of the claim went with the request; a fresh claim opens a new session.
    await expect(nodeA.claim('ch1', 'k-other')).resolves.toBeDefined();
  });
});
