import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyOf, type ProblemBody } from '../helpers/bodies.js';
import { mountTmpfs } from '../helpers/tmpfs.js';
import { tempDir } from '../helpers/harness.js';
import { logLines, spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { png } from '../media/fixtures.js';

/**
 * A really full disk: the service on a 12 MB tmpfs, filled until the kernel says
 * ENOSPC. Mounting needs root (CAP_SYS_ADMIN); elsewhere this file is skipped
 * and the max_page_count tests in disk-full.test.ts still cover the HTTP side.
 */
const mountPoint = tempDir('alertbridge-tmpfs-');
const mounted = mountTmpfs(mountPoint, '12m');

let svc: SpawnedService | undefined;
afterAll(() => {
  svc?.child.kill('SIGKILL');
  if (mounted) {
    try {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
    } finally {
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  }
});

describe.skipIf(!mounted)('disk full for real (tmpfs, needs root to mount)', () => {
  it('answers only 201 or 503 while the disk fills, degrades /healthz, keeps reads working, and recovers when space is freed', async () => {
    const dataDir = path.join(mountPoint, 'data');
    svc = await spawnService({ DATA_DIR: dataDir, MEDIA_FREE_SPACE_RESERVE_MB: '0', SHUTDOWN_TIMEOUT_MS: '5000' });
    const hook = svc.webhookUrl!;
    const post = (body: unknown) => fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    // Leave ~1.5 MB: the WAL and the rows take it quickly.
    const free = () => {
      const st = fs.statfsSync(mountPoint);
      return st.bavail * st.bsize;
    };
    const filler = path.join(mountPoint, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 1_500_000)));

    const acked: string[] = [];
    const statuses = new Map<number, number>();
    let refusal: { headers: Headers; body: ProblemBody } | undefined;
    for (let i = 0; i < 3000 && !refusal; i++) {
      const res = await post({ title: `fill ${i}`, message: `${i} `.padEnd(4900, 'x') });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 201) acked.push((await bodyOf.accepted(res)).alertId);
      else refusal = { headers: res.headers, body: await bodyOf.problem(res) };
    }
    expect(refusal?.body).toMatchObject({ status: 503, type: expect.stringMatching(/\/problems\/storage-unavailable$/) });
    expect(refusal!.headers.get('retry-after')).toBe('30');
    expect([...statuses.keys()].sort()).toEqual([201, 503]);

    // An attachment on the full disk: ENOSPC from the media store is the same 503, and no temp file stays.
    const withFile = await post({ title: 'with file', attachments: [{ data: png(7).toString('base64'), type: 'image' }] });
    expect(withFile.status).toBe(503);
    expect(fs.readdirSync(path.join(dataDir, 'media'))).toEqual([]);

    const health = await bodyOf.health(await fetch(`${svc.base}/healthz`));
    expect(health.status).toBe('degraded');
    expect(health.reasons?.[0]).toMatch(/^storage: (database or disk is full|no space left on device|disk I\/O error)$/);
    expect((await fetch(`${svc.base}/readyz`)).status).toBe(503);
    // Reads need no space: a read-API request still answers while writes are refused.
    const list = await fetch(`${svc.base}/api/channels`, { headers: { authorization: `Bearer ${svc.apiToken}` } });
    expect(list.status).toBe(200);

    // Space comes back: the service recovers by itself.
    fs.rmSync(filler);
    const after = await post({ title: 'after space returned' });
    expect(after.status).toBe(201);
    expect((await bodyOf.health(await fetch(`${svc.base}/healthz`))).status).toBe('ok');
    expect((await fetch(`${svc.base}/readyz`)).status).toBe(200);

    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
    const out = svc.output();
    expect(out).not.toContain('unhandled error');
    expect(logLines(out).filter((l) => l.includes('storage unavailable')).length).toBeGreaterThanOrEqual(1);

    // Every 201 is in the database.
    const db = new Database(path.join(dataDir, 'alertbridge.db'), { readonly: true });
    const q = db.prepare('SELECT 1 FROM alerts WHERE id = ?').pluck();
    expect(acked.filter((id) => !q.get(id))).toEqual([]);
    expect(db.prepare(`SELECT count(*) FROM alerts WHERE title = 'with file'`).pluck().get()).toBe(0);
    db.close();
  }, 120_000);
});
