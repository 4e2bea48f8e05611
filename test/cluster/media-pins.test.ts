import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MEDIA_KEY_LOCK_CLASS } from '../../src/db/shared/advisory-locks.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlMediaOrphanRows } from '../../src/db/shared/media-orphan-rows.js';
import { systemClock } from '../../src/lib/clock.js';
import { MediaOrphans } from '../../src/ops/media-orphans.js';
import { createEngineHarness, type Harness, type HarnessNode, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';
import { png } from '../media/fixtures.js';

const HOUR = 60 * 60 * 1000;
/** A session of this database waiting for a media key's advisory lock (the two-key form: classid, objid, objsubid 2). */
const WAITING_ON_KEY_LOCK = `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid = $1::int::oid AND NOT granted
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
const keyOf = (bytes: Buffer) => `${createHash('sha256').update(bytes).digest('hex')}.png`;

/**
 * Media across nodes: node A sweeps orphaned files (as the leader does) while node B uploads the
 * same bytes, on one database and one media directory. The interleavings are forced: the sweep's
 * reference check is held open by a gate, or its DELETE by a row lock from a test connection.
 */
describePg('media pins across nodes (PostgreSQL)', () => {
  let a: Harness;
  let b: HarnessNode;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let pool: pg.Pool;
  let media: string;
  beforeAll(async () => {
    const env = { MEDIA_ORPHAN_GRACE_HOURS: '1' };
    a = await createEngineHarness('postgres', { env });
    b = await a.node({ env });
    seed = await seedWorkspace(a.services);
    pool = new pg.Pool({ connectionString: a.config.databaseUrl!, max: 3 });
    pool.on('error', () => {}); // the database is dropped WITH (FORCE) at close
    media = a.config.mediaDir;
  });
  afterAll(async () => {
    await pool?.end();
    await a?.close();
  });

  const post = (n: HarnessNode, token: string, payload: unknown) => n.call('POST', `/api/webhook/${token}`, { json: payload });
  const withFile = (title: string, bytes: Buffer, runId?: string, state?: string) => ({
    title,
    ...(runId ? { workflow: { runId, state, steps: [] } } : {}),
    attachments: [{ data: bytes.toString('base64') }],
  });

  /** Stores `bytes` on node A, replaces them (the release lists the key), and moves the listing past the grace period. */
  async function orphanDue(bytes: Buffer, replacement: Buffer, runId: string): Promise<string> {
    const key = keyOf(bytes);
    expect((await post(a, seed.deploys.webhookToken, withFile('run', bytes, runId, 'running'))).status).toBe(201);
    expect((await post(a, seed.deploys.webhookToken, withFile('run', replacement, runId, 'passed'))).status).toBe(201);
    await eventually(async () => (await pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount === 1, 'the release lists the key');
    await pool.query('UPDATE media_orphans SET orphaned_at = orphaned_at - $2::bigint WHERE media_key = $1', [key, 2 * HOUR]);
    expect(fs.existsSync(path.join(media, key))).toBe(true);
    return key;
  }

  async function served(n: HarnessNode, key: string): Promise<{ status: number; bytes?: Buffer }> {
    const res = await n.call('GET', `/media/${key}`);
    return res.status === 200 ? { status: 200, bytes: Buffer.from(await res.arrayBuffer()) } : { status: res.status };
  }

  it('an upload on node B that commits while the sweep on node A has decided "unreferenced" keeps its file', async () => {
    const bytes = png(101);
    const key = await orphanDue(bytes, png(201), 'gate');

    // Node A's sweep, its reference check held open after the answer ("not referenced").
    let answered!: () => void;
    const asked = new Promise<void>((r) => (answered = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const gated = async (k: string) => {
      const used = await a.services.store.isMediaReferenced(k);
      if (k === key) {
        answered();
        await gate;
      }
      return used;
    };
    const sweeper = new MediaOrphans(new SqlMediaOrphanRows(new PgExecutor(pool)), a.services.media, systemClock, HOUR, gated);
    const sweep = sweeper.sweep();
    await asked;

    // Meanwhile node B stores an alert with the same bytes: the file is there, B links nothing new.
    const res = await post(b, seed.general.webhookToken, withFile('same bytes on B', bytes));
    expect(res.status).toBe(201);

    open();
    const deleted = await sweep;
    expect(await served(b, key)).toEqual({ status: 200, bytes });
    expect(deleted).toBe(0);
    expect(await served(a, key)).toMatchObject({ status: 200 });
    // B's pin restarted the grace period: the key stays listed until a later sweep finds it referenced.
    const [row] = (await pool.query<{ at: string }>('SELECT orphaned_at AS at FROM media_orphans WHERE media_key = $1', [key])).rows;
    expect(Number(row!.at)).toBeGreaterThan(Date.now() - HOUR);

    await pool.query('UPDATE media_orphans SET orphaned_at = orphaned_at - $2::bigint WHERE media_key = $1', [key, 2 * HOUR]);
    expect(await a.services.mediaOrphans.sweep()).toBe(0);
    expect((await pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount).toBe(0);
    expect(await served(b, key)).toEqual({ status: 200, bytes });
  });

  it('an upload on node B waits while the sweep on node A holds the key, then writes the file again', async () => {
    const bytes = png(102);
    const key = await orphanDue(bytes, png(202), 'held');

    // A test connection locks the listing row: the sweep unlinks the file, then waits at its DELETE holding the key's lock.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM media_orphans WHERE media_key = $1 FOR UPDATE', [key]);
      const sweep = a.services.mediaOrphans.sweep();
      await eventually(() => !fs.existsSync(path.join(media, key)), 'the sweep unlinked the file');

      const upload = post(b, seed.general.webhookToken, withFile('same bytes, during the sweep', bytes));
      // B's pin waits for the key's advisory lock (the sweep's transaction holds it).
      await eventually(
        async () => (await pool.query(WAITING_ON_KEY_LOCK, [MEDIA_KEY_LOCK_CLASS])).rowCount === 1,
        "B's upload waits for the key's lock",
      );
      await holder.query('COMMIT');

      expect(await sweep).toBe(1);
      expect((await upload).status).toBe(201);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
    }
    // B's link came after the sweep's unlink: the file is there again, and nothing lists it.
    expect(await served(a, key)).toEqual({ status: 200, bytes });
    expect((await pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount).toBe(0);
  });

  it('with no upload in the way, the sweep still deletes a due orphan and forgets it', async () => {
    const key = await orphanDue(png(103), png(203), 'plain');
    expect(await a.services.mediaOrphans.sweep()).toBe(1);
    expect(fs.existsSync(path.join(media, key))).toBe(false);
    expect(await served(b, key)).toEqual({ status: 404 });
    expect((await pool.query('SELECT count(*)::int AS n FROM media_orphans')).rows[0]).toEqual({ n: 0 });
  });

  it('a request that fails after storing its file leaves it to the sweep: an upload of the same bytes on node B keeps it', async () => {
    const bytes = png(104);
    const key = keyOf(bytes);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'shot.png');
    form.append('payload', '{"title": ');
    const failed = await a.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { body: form });
    expect(failed.status).toBe(400);
    // Not deleted at once (B may be committing these very bytes, unseen by A): listed for the sweep.
    expect(fs.existsSync(path.join(media, key))).toBe(true);
    expect((await pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount).toBe(1);
    expect((await post(b, seed.general.webhookToken, withFile('same bytes on B', bytes))).status).toBe(201);
    await pool.query('UPDATE media_orphans SET orphaned_at = orphaned_at - $2::bigint WHERE media_key = $1', [key, 2 * HOUR]);
    // B's pin restarted the grace period; once due again, the sweep finds the key referenced and forgets it.
    expect(await a.services.mediaOrphans.sweep()).toBe(0);
    await pool.query('UPDATE media_orphans SET orphaned_at = orphaned_at - $2::bigint WHERE media_key = $1', [key, 2 * HOUR]);
    expect(await a.services.mediaOrphans.sweep()).toBe(0);
    expect((await pool.query('SELECT 1 FROM media_orphans WHERE media_key = $1', [key])).rowCount).toBe(0);
    expect(await served(b, key)).toEqual({ status: 200, bytes });

    // A failed request whose bytes nobody else uses: the sweep deletes its file after the grace period.
    const lone = png(105);
    const form2 = new FormData();
    form2.append('file', new Blob([new Uint8Array(lone)], { type: 'image/png' }), 'lone.png');
    form2.append('payload', '{"title": ');
    expect((await b.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { body: form2 })).status).toBe(400);
    await pool.query('UPDATE media_orphans SET orphaned_at = orphaned_at - $2::bigint WHERE media_key = $1', [keyOf(lone), 2 * HOUR]);
    expect(await a.services.mediaOrphans.sweep()).toBe(1);
    expect(fs.existsSync(path.join(media, keyOf(lone)))).toBe(false);
  });
});
