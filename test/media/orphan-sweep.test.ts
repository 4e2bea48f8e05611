import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { MediaOrphans } from '../../src/ops/media-orphans.js';
import { SqliteMediaOrphanRows } from '../../src/db/media-orphan-rows.js';
import { createHarness, seedWorkspace, type Harness } from '../helpers/harness.js';
import { jpeg, png } from './fixtures.js';

const HOUR = 60 * 60 * 1000;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * The orphan sweep against uploads of the same process (SQLite: the in-memory pin is the whole
 * pin): a key an in-flight upload holds, or one an upload pinned and released while the sweep was
 * asking about it, is neither deleted nor forgotten; the next sweep decides again.
 */
async function dueOrphan() {
  const clock = new ManualClock(Date.now());
  h = createHarness({ env: { MEDIA_ORPHAN_GRACE_HOURS: '1' }, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const post = (state: string, bytes: Buffer) =>
    h!.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, {
      json: { title: 'Deploy', workflow: { runId: 'r1', state, steps: [] }, attachments: [{ data: bytes.toString('base64') }] },
    });
  expect((await post('running', png(1))).status).toBe(201);
  expect((await post('passed', jpeg())).status).toBe(201); // png(1) released: listed
  clock.advance(2 * HOUR);
  const s = h.services;
  const [key] = s.db.sqlite.prepare<[], string>('SELECT media_key FROM media_orphans').pluck().all();
  const listed = () => s.db.sqlite.prepare('SELECT count(*) FROM media_orphans').pluck().get();
  const onDisk = () => fs.existsSync(path.join(s.media.dir, key!));
  return { s, clock, key: key!, listed, onDisk };
}

describe('the orphan sweep and uploads in the same process', () => {
  it('an in-flight upload of the bytes keeps the file and its listing; after it fails, the next sweep deletes the file', async () => {
    const { s, listed, onDisk } = await dueOrphan();
    const batch = s.media.batch();
    expect((await batch.putBuffer(png(1))).created).toBe(false);

    expect(await s.mediaOrphans.sweep()).toBe(0);
    expect(onDisk()).toBe(true);
    expect(listed()).toBe(1);

    expect(await batch.rollback((k) => s.store.isMediaReferenced(k))).toEqual([]); // not its file: left to the sweep
    expect(await s.mediaOrphans.sweep()).toBe(1);
    expect(onDisk()).toBe(false);
    expect(listed()).toBe(0);
  });

  it('an upload pinned and released while the sweep waits for its answer keeps the file listed; the next sweep asks again', async () => {
    const { s, clock, listed, onDisk } = await dueOrphan();
    let answered!: () => void;
    const asked = new Promise<void>((r) => (answered = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // An answer that takes a while (as a PostgreSQL query does): "not referenced".
    const slow = async (k: string) => {
      const used = s.store.isMediaReferenced(k);
      answered();
      await gate;
      return used;
    };
    const sweeper = new MediaOrphans(new SqliteMediaOrphanRows(s.db.sqlite), s.media, clock, HOUR, slow);
    const sweep = sweeper.sweep();
    await asked;
    const batch = s.media.batch();
    await batch.putBuffer(png(1));
    await batch.commit(); // as a request whose alert now references the file would
    open();
    expect(await sweep).toBe(0);
    expect(onDisk()).toBe(true);
    expect(listed()).toBe(1);

    // Nothing references it after all (the batch above stored no alert): the next sweep deletes it.
    expect(await s.mediaOrphans.sweep()).toBe(1);
    expect(onDisk()).toBe(false);
    expect(listed()).toBe(0);
  });
});
