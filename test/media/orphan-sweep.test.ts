import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, testEngine, type Harness, seedWorkspace } from '../helpers/harness.js';
import { jpeg, png } from './fixtures.js';

const HOUR = 60 * 60 * 1000;
let h: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

/**
 * The orphan sweep against uploads of the same process: a key an in-flight upload holds, or one an
 * upload pinned and released while the sweep was asking about it, is neither deleted nor forgotten;
 * a later sweep decides again. On SQLite the in-memory pin is the whole pin; on PostgreSQL the
 * upload's pin also restarts the key's grace period (src/db/pg/media-orphan-rows.ts; across nodes:
 * test/cluster/media-pins.test.ts), so that later sweep comes after the grace period.
 */
async function dueOrphan() {
  const clock = new ManualClock(Date.now());
  h = await startHarness({ env: { MEDIA_ORPHAN_GRACE_HOURS: '1' }, overrides: { clock } });
  const hh = h;
  const seed = await seedWorkspace(hh.services);
  const post = (state: string, bytes: Buffer) =>
    hh.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, {
      json: { title: 'Deploy', workflow: { runId: 'r1', state, steps: [] }, attachments: [{ data: bytes.toString('base64') }] },
    });
  expect((await post('running', png(1))).status).toBe(201);
  expect((await post('passed', jpeg())).status).toBe(201); // png(1) released: listed (after the answer, on PostgreSQL)
  await expect.poll(() => hh.count('media_orphans')).toBe(1);
  clock.advance(2 * HOUR);
  const s = hh.services;
  const [key] = (await hh.query<{ key: string }>('SELECT media_key AS key FROM media_orphans')).map((r) => r.key);
  const listed = () => hh.count('media_orphans');
  const onDisk = () => fs.existsSync(path.join(s.media.dir, key!));
  /** The upload's pin restarted the grace period on PostgreSQL: the sweep leaves the file until it is over. */
  const pastPinnedGrace = async () => {
    if (testEngine() === 'sqlite') return;
    expect(await s.mediaOrphans.sweep()).toBe(0);
    expect(onDisk()).toBe(true);
    clock.advance(HOUR);
  };
  return { s, key: key!, listed, onDisk, pastPinnedGrace };
}

describe('the orphan sweep and uploads in the same process', () => {
  it('an in-flight upload of the bytes keeps the file and its listing; after it fails, the next sweep deletes the file', async () => {
    const { s, listed, onDisk, pastPinnedGrace } = await dueOrphan();
    const batch = s.media.batch();
    expect((await batch.putBuffer(png(1))).created).toBe(false);

    expect(await s.mediaOrphans.sweep()).toBe(0);
    expect(onDisk()).toBe(true);
    expect(await listed()).toBe(1);

    expect(await batch.rollback((k) => s.store.isMediaReferenced(k))).toEqual([]); // not its file: left to the sweep
    await pastPinnedGrace();
    expect(await s.mediaOrphans.sweep()).toBe(1);
    expect(onDisk()).toBe(false);
    expect(await listed()).toBe(0);
  });

  it('an upload pinned and released while the sweep waits for its answer keeps the file listed; the next sweep asks again', async () => {
    const { s, listed, onDisk, pastPinnedGrace } = await dueOrphan();
    let answered!: () => void;
    const asked = new Promise<void>((r) => (answered = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // The sweep's reference check answers late: "not referenced".
    const isReferenced = s.store.isMediaReferenced.bind(s.store);
    const slow = vi.spyOn(s.store, 'isMediaReferenced').mockImplementation(async (k: string) => {
      const used = await isReferenced(k);
      answered();
      await gate;
      return used;
    });
    const sweep = s.mediaOrphans.sweep();
    await asked;
    const batch = s.media.batch();
    await batch.putBuffer(png(1));
    await batch.commit(); // as a request whose alert now references the file would
    open();
    expect(await sweep).toBe(0);
    expect(onDisk()).toBe(true);
    expect(await listed()).toBe(1);

    // Nothing references it after all (the batch above stored no alert): a later sweep deletes it.
    slow.mockRestore();
    await pastPinnedGrace();
    expect(await s.mediaOrphans.sweep()).toBe(1);
    expect(onDisk()).toBe(false);
    expect(await listed()).toBe(0);
  });
});
