import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, seedWorkspace, type Harness } from '../helpers/harness.js';
import { jpeg, png } from '../media/fixtures.js';

// MEDIA_ORPHAN_GRACE_HOURS=0 is SQLite's alone: refused with DATABASE_URL, where nodes share the files (test/config.test.ts).
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('media grace period of 0', () => {
  it('MEDIA_ORPHAN_GRACE_HOURS=0 deletes released files at once', async () => {
    h = await startHarness({ engine: 'sqlite', env: { MEDIA_ORPHAN_GRACE_HOURS: '0' } });
    const seed = await seedWorkspace(h.services);
    const files = () => fs.readdirSync(path.join(h!.dir, 'media')).filter((f) => !f.startsWith('.'));
    const post = (state: string, attachment: Buffer) =>
      h!.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, {
        json: { title: 'Deploy', workflow: { runId: 'r1', state, steps: [] }, attachments: [{ data: attachment.toString('base64') }] },
      });
    expect((await post('running', png(1))).status).toBe(201);
    expect((await post('passed', jpeg())).status).toBe(201);
    expect(files()).toHaveLength(1);
  });
});
