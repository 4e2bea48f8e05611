import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { createEngineHarness, type Engine, type HarnessNode, seedWorkspace, tempDir } from '../helpers/harness.js';
import { mountTmpfs } from '../helpers/tmpfs.js';
import { describePg } from '../helpers/pg.js';
import { png } from '../media/fixtures.js';

/**
 * MEDIA_DIR on a volume of its own (a 16 MB tmpfs), DATA_DIR on the machine's disk: /readyz and the
 * free-space reserve measure the volume the files are written to, and on SQLite the database's as
 * well. Mounting needs root (CAP_SYS_ADMIN); elsewhere this file is skipped.
 */
const mountPoint = tempDir('alertbridge-media-tmpfs-');
const mounted = mountTmpfs(mountPoint, '16m');
afterAll(() => {
  if (!mounted) return;
  try {
    execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
  } finally {
    fs.rmSync(mountPoint, { recursive: true, force: true });
  }
});

const MB = 1024 * 1024;
const filler = path.join(mountPoint, 'filler');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
  fs.rmSync(filler, { force: true });
});

/** Leaves about `mb` MB free on the tmpfs. */
function fillTo(mb: number) {
  const st = fs.statfsSync(mountPoint);
  fs.writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - mb * MB)));
}

async function start(engine: Engine, name: string) {
  const mediaDir = path.join(mountPoint, name);
  const h = await createEngineHarness(engine, { env: { MEDIA_DIR: mediaDir, MEDIA_FREE_SPACE_RESERVE_MB: '8' } });
  cleanup.push(async () => {
    await h.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });
  const seed = await seedWorkspace(h.services);
  const readyz = async (n: HarnessNode = h) => {
    const res = await n.call('GET', '/readyz');
    return { status: res.status, body: await bodyOf.readiness(res) };
  };
  const post = (payload: unknown) => h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: payload });
  const files = () => fs.readdirSync(mediaDir).filter((f) => !f.startsWith('.'));
  return { h, readyz, post, files };
}

const withFile = (title: string, seed: number) => ({ title, attachments: [{ data: png(seed).toString('base64') }] });

describe.skipIf(!mounted)('MEDIA_DIR on its own volume (tmpfs, needs root to mount)', () => {
  it('SQLite: /readyz checks both volumes and fails on the media one; the reserve refuses uploads there; both recover', async () => {
    const { readyz, post, files } = await start('sqlite', 'sqlite-media');
    const fine = await readyz();
    expect(fine.status).toBe(200);
    expect(fine.body.checks.disk).toEqual({
      status: 'ok',
      freeMb: 16,
      reserveMb: 8,
      volumes: { DATA_DIR: { status: 'ok', freeMb: expect.any(Number) }, MEDIA_DIR: { status: 'ok', freeMb: 16 } },
    });

    fillTo(4);
    const low = await readyz();
    expect(low.status).toBe(503);
    expect(low.body.checks.disk).toMatchObject({ status: 'fail', freeMb: 4, volumes: { DATA_DIR: { status: 'ok' }, MEDIA_DIR: { status: 'fail', freeMb: 4 } } });

    const refused = await post(withFile('with a file', 1));
    expect(refused.status).toBe(503);
    expect((await bodyOf.problem(refused)).detail).toBe('nothing was stored: free space on the media volume is below the reserve (4 MB free, 8 MB kept free); retry later');
    expect(files()).toEqual([]);
    // The database's volume has room: an alert without files is stored.
    expect((await post({ title: 'no file' })).status).toBe(201);

    fs.rmSync(filler);
    expect((await readyz()).status).toBe(200);
    expect((await post(withFile('with a file, later', 1))).status).toBe(201);
    expect(files()).toHaveLength(1);
  });

  it('SQLite: DATA_DIR and MEDIA_DIR on one volume are measured once (no per-volume detail)', async () => {
    const dataDir = path.join(mountPoint, 'both');
    const h = await createEngineHarness('sqlite', { env: { DATA_DIR: dataDir, MEDIA_FREE_SPACE_RESERVE_MB: '8' } });
    cleanup.push(async () => {
      await h.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const res = await h.call('GET', '/readyz');
    expect((await bodyOf.readiness(res)).checks.disk).toEqual({ status: 'ok', freeMb: expect.any(Number), reserveMb: 8 });
    fillTo(4);
    const low = await bodyOf.readiness(await h.call('GET', '/readyz'));
    expect(low.checks.disk).toEqual({ status: 'fail', freeMb: expect.any(Number), reserveMb: 8 });
    expect(low.checks.disk?.freeMb).toBeLessThanOrEqual(4);
  });
});

describePg('MEDIA_DIR on its own volume, PostgreSQL', () => {
  it.skipIf(!mounted)('only MEDIA_DIR is written locally: /readyz measures it (DATA_DIR is not looked at) and the reserve refuses uploads', async () => {
    const { readyz, post, files } = await start('postgres', 'pg-media');
    const fine = await readyz();
    expect(fine.status).toBe(200);
    expect(fine.body.checks.disk).toEqual({ status: 'ok', freeMb: 16, reserveMb: 8 });

    fillTo(4);
    const low = await readyz();
    expect(low.status).toBe(503);
    expect(low.body.checks.disk).toEqual({ status: 'fail', freeMb: 4, reserveMb: 8 });
    const refused = await post(withFile('with a file', 2));
    expect(refused.status).toBe(503);
    expect((await bodyOf.problem(refused)).detail).toMatch(/free space on the media volume is below the reserve \(4 MB free, 8 MB kept free\)/);
    expect(files()).toEqual([]);

    fs.rmSync(filler);
    expect((await readyz()).status).toBe(200);
    expect((await post(withFile('with a file, later', 2))).status).toBe(201);
  });
});
