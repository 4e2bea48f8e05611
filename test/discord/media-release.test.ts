import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { png } from '../media/fixtures.js';
import { describeEngines } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { BridgeEnv } from './bridge-env.js';

const files = (e: BridgeEnv) => fs.readdirSync(e.h.config.mediaDir).filter((f) => !f.startsWith('.'));

describeEngines('chat attachments on delete', (engine) => {
  let env: BridgeEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('a deleted message takes its re-hosted file with it, unless another message uses the same bytes', async () => {
    const e = (env = await BridgeEnv.create({ engine }));
    const own = e.send({ content: 'mine', attachments: [{ filename: 'a.png', data: png(11), contentType: 'image/png' }] });
    const shared1 = e.send({ content: 'shared 1', attachments: [{ filename: 'b.png', data: png(12), contentType: 'image/png' }] });
    e.send({ content: 'shared 2', attachments: [{ filename: 'c.png', data: png(12), contentType: 'image/png' }] });
    const alerts = await e.waitForMessages(3);
    expect(files(e)).toHaveLength(2);
    const ownUrl = alerts[0]!.attachments[0]!.url;

    e.fake.deleteMessage(e.seed.channel.id, own.id);
    e.fake.deleteMessage(e.seed.channel.id, shared1.id);
    await eventually(async () => (await e.list()).alerts.length === 1, 'the deletes');
    // On PostgreSQL the released file waits for the sweep (the grace period cannot be 0 there).
    await eventually(async () => (engine === 'postgres' && (await e.h.services.mediaOrphans.sweep()), files(e).length === 1), 'the unused file to go');
    expect((await e.h.call('GET', new URL(ownUrl).pathname)).status).toBe(404);
    const left = (await e.list()).alerts[0];
    expect((await e.h.call('GET', new URL(left!.attachments[0]!.url).pathname)).status).toBe(200);
  });
});
