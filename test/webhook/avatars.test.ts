import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, closeServer, seedWorkspace } from '../helpers/harness.js';

let h: Harness;
let server: http.Server | undefined;
afterEach(async () => {
  await h?.close();
  await closeServer(server);
  server = undefined;
});

const sha = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

async function avatarService(known: string[], delayMs: number) {
  const hits: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  server = http.createServer(async (req, res) => {
    hits.push(req.url!);
    if (delayMs) await gate;
    const hash = req.url!.split('?')[0]!.split('/').pop()!;
    if (known.map(sha).includes(hash)) res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/avatar`, hits, release };
}

const actorOf = async (token: string, alertId: string) => (await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token }))).actor;

describe('actor avatars', () => {
  it('are looked up after the answer, stored when found, cached, and never block the webhook', async () => {
    const svc = await avatarService(['jane.doe@acme.com'], 1);
    h = await startHarness({ env: { AVATAR_BASE_URL: svc.base } });
    const seed = await seedWorkspace(h.services);
    const post = (email: string) => h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { email } } });

    // The avatar service is holding its answer: the webhook still answers at once.
    const res = await post('Jane.Doe@acme.com');
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    expect((await actorOf(seed.ownerToken, alertId))!.avatarUrl).toBeUndefined();
    svc.release();
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, alertId))!.avatarUrl).toBe(`${svc.base}/${sha('jane.doe@acme.com')}?s=128`);

    // Cached: a second alert from the same person does not ask again.
    const second = await bodyOf.accepted(await post('jane.doe@acme.com'));
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, second.alertId))!.avatarUrl).toContain(sha('jane.doe@acme.com'));
    expect(svc.hits).toHaveLength(1);

    // 404 means no avatar; a sent avatarUrl is never replaced or looked up.
    const nobody = await bodyOf.accepted(await post('nobody@acme.com'));
    const own = await bodyOf.accepted(await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { email: 'x@acme.com', avatarUrl: 'https://img.example.com/x.png' } } }));
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, nobody.alertId))!.avatarUrl).toBeUndefined();
    expect((await actorOf(seed.ownerToken, own.alertId))!.avatarUrl).toBe('https://img.example.com/x.png');
    expect(svc.hits).toHaveLength(2);
  });

  it('with no network at all, alerts are stored and simply get no avatar', async () => {
    // A port nothing listens on, and a very short timeout.
    h = await startHarness({ env: { AVATAR_BASE_URL: 'http://127.0.0.1:9/avatar', AVATAR_TIMEOUT_MS: '200' } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: 'jane.doe@acme.com' } });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    await h.services.avatars.idle();
    expect(await actorOf(seed.ownerToken, alertId)).toEqual({ email: 'jane.doe@acme.com', name: 'Jane Doe', initials: 'JD', company: 'Acme' });
  });
});
