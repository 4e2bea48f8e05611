import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import { jpeg, png } from '../media/fixtures.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HOUR = 60 * 60 * 1000;
const b64 = (b: Buffer) => b.toString('base64');

async function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock(Date.now());
  h = await startHarness({ env, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const dir = path.join(h.dir, 'media');
  const files = () => fs.readdirSync(dir).filter((f) => !f.startsWith('.')).sort();
  const post = (state: string, attachment: Buffer) =>
    h!.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, {
      json: { title: 'Deploy', workflow: { runId: 'r1', state, steps: [] }, attachments: [{ data: b64(attachment) }] },
    });
  const hh = h;
  /**
   * When each listed file was released: the release runs after the commit, and on PostgreSQL its
   * reference check and listing are queries the webhook's answer does not wait for.
   */
  const listed = async () => (await hh.query<{ at: number }>('SELECT orphaned_at AS at FROM media_orphans ORDER BY orphaned_at')).map((r) => Number(r.at));
  return { clock, seed, files, post, h: hh, listed };
}

describe('media grace period', () => {
  it('a replaced attachment stays on disk for 24 h (default), then the maintenance sweep deletes it', async () => {
    const { clock, files, post, h, listed } = await setup();
    expect((await post('running', png(1))).status).toBe(201);
    const [first] = files();
    expect((await post('passed', jpeg())).status).toBe(201);
    await expect.poll(listed).toEqual([clock.now()]);
    // Nothing references the PNG any more, but a database copy taken a moment ago still does.
    expect(files()).toHaveLength(2);
    expect(files()).toContain(first);

    clock.advance(24 * HOUR - 1);
    expect((await h.services.maintenance()).orphanedMedia).toBe(0);
    expect(files()).toContain(first);

    clock.advance(1);
    expect((await h.services.maintenance()).orphanedMedia).toBe(1);
    expect(files()).not.toContain(first);
    expect(files()).toHaveLength(1);
    expect(await h.count('media_orphans')).toBe(0);
  });

  it('a file used again during the grace period is kept; released again, its period restarts', async () => {
    const { clock, files, post, h, seed, listed } = await setup({ MEDIA_ORPHAN_GRACE_HOURS: '2' });
    const other = (state: string, attachment: Buffer) =>
      h.call('POST', `/api/webhook/${seed.general.webhookToken}`, {
        json: { title: 'Other', workflow: { runId: 'r2', state, steps: [] }, attachments: [{ data: b64(attachment) }] },
      });
    expect((await post('running', png(1))).status).toBe(201);
    expect((await post('passed', jpeg())).status).toBe(201); // png(1) orphaned at t0
    await expect.poll(listed).toEqual([clock.now()]);
    clock.advance(1 * HOUR);
    expect((await other('running', png(1))).status).toBe(201); // the same bytes are used again
    clock.advance(1 * HOUR);
    expect((await other('passed', png(2))).status).toBe(201); // and released again at t0 + 2 h
    await expect.poll(listed).toEqual([clock.now()]);
    // Due by the first release (t0 + 2 h), but the second release restarted the period.
    expect((await h.services.maintenance()).orphanedMedia).toBe(0);
    expect(files()).toHaveLength(3);

    clock.advance(2 * HOUR);
    expect((await h.services.maintenance()).orphanedMedia).toBe(1);
    expect(files()).toHaveLength(2); // the jpeg and png(2), both referenced
  });

  it('an orphan that an alert references again by sweep time is kept and forgotten', async () => {
    const { clock, files, post, h, seed, listed } = await setup({ MEDIA_ORPHAN_GRACE_HOURS: '1' });
    expect((await post('running', png(1))).status).toBe(201);
    expect((await post('passed', jpeg())).status).toBe(201);
    await expect.poll(listed).toEqual([clock.now()]);
    const again = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'again', attachments: [{ data: b64(png(1)) }] } });
    expect(again.status).toBe(201);
    clock.advance(2 * HOUR);
    expect((await h.services.maintenance()).orphanedMedia).toBe(0);
    expect(files()).toHaveLength(2);
    expect(await h.count('media_orphans')).toBe(0);
  });

  it('at start, unreferenced files nothing listed (a crash after a commit, a restored older database) start their grace period', async () => {
    const { clock, files, post, h } = await setup({ MEDIA_ORPHAN_GRACE_HOURS: '1' });
    expect((await post('running', png(1))).status).toBe(201);
    const stray = `${'ab'.repeat(32)}.png`;
    fs.writeFileSync(path.join(h.dir, 'media', stray), png(9));
    fs.writeFileSync(path.join(h.dir, 'media', 'notes.txt'), 'not a media key: never touched');

    expect(await h.services.mediaOrphans.adoptStrays()).toBe(1);
    expect(await h.services.mediaOrphans.adoptStrays()).toBe(0); // already listed: the period is not restarted
    clock.advance(1 * HOUR);
    expect((await h.services.maintenance()).orphanedMedia).toBe(1);
    expect(files()).not.toContain(stray);
    expect(files()).toHaveLength(2); // the referenced PNG, and notes.txt
    expect(files()).toContain('notes.txt');
  });
});
