import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, closeServer, describeEngines, seedWorkspace } from '../helpers/harness.js';

let h: Harness | undefined;
let server: http.Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await closeServer(server);
  server = undefined;
});

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const emailHash = (email: string) => sha(email.trim().toLowerCase());
/** A real 1×1 PNG: the media store sniffs the bytes, a fake would be refused. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/**
 * A fake image host on loopback: `/pic.png` the PNG, `/avatar/<sha of a known e-mail>` the PNG,
 * `/big.png` a PNG past the avatar cap, `/page` HTML; anything else 404. `gate` holds every answer
 * until released. The service reaches it because the test lifts the private-address check
 * (ATTACHMENT_FETCH_ALLOW_PRIVATE, as the attachment tests do); every other fetch rule stays.
 */
async function imageHost(known: string[] = [], opts: { held?: boolean } = {}) {
  const hits: string[] = [];
  let release!: () => void;
  const gate = opts.held ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  server = http.createServer(async (req, res) => {
    hits.push(req.url!);
    await gate;
    const path = req.url!.split('?')[0]!;
    if (path === '/pic.png' || known.map((e) => `/avatar/${emailHash(e)}`).includes(path)) res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (path === '/big.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([PNG, Buffer.alloc(1024 * 1024 + 1)]));
    else if (path === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>hi</body></html>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, hits, release: () => release?.() };
}

const actorOf = async (token: string, alertId: string) => (await bodyOf.alert(await h!.call('GET', `/api/alerts/${alertId}`, { token }))).actor;

describeEngines('actor avatars', (engine) => {
  it('a sent avatarUrl is copied once into the media store and served from it; the source URL is never shown', async () => {
    const host = await imageHost([], { held: true });
    h = await startHarness({ engine, env: { AVATAR_FETCH: '1', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    const post = (actor: object) => h!.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor } });

    // The image host is holding its answer: the webhook answers at once, and the sender's URL is not shown meanwhile.
    const res = await post({ name: 'Ada', avatarUrl: `${host.base}/pic.png?token=secret` });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    expect(await actorOf(seed.ownerToken, alertId)).toEqual({ name: 'Ada', initials: 'A' });
    host.release();
    await h.services.avatars.idle();

    const copy = `${h.config.mediaPublicUrl}/${sha(PNG)}.png`;
    expect((await actorOf(seed.ownerToken, alertId))!.avatarUrl).toBe(copy);
    const served = await h.call('GET', new URL(copy).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    // Another alert from the same picture: no second download.
    const second = await bodyOf.accepted(await post({ name: 'Ada', avatarUrl: `${host.base}/pic.png?token=secret` }));
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, second.alertId))!.avatarUrl).toBe(copy);
    expect(host.hits).toEqual(['/pic.png?token=secret']);
  });

  it('an e-mail alone gets the public avatar service picture, copied the same way; 404 means none', async () => {
    const host = await imageHost(['jane.doe@acme.com']);
    h = await startHarness({ engine, env: { AVATAR_FETCH: '1', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1', AVATAR_BASE_URL: `${host.base}/avatar` } });
    const seed = await seedWorkspace(h.services);
    const post = (email: string) => h!.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { email } } });
    const jane = await bodyOf.accepted(await post('Jane.Doe@acme.com'));
    const nobody = await bodyOf.accepted(await post('nobody@acme.com'));
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, jane.alertId))!.avatarUrl).toBe(`${h.config.mediaPublicUrl}/${sha(PNG)}.png`);
    expect((await actorOf(seed.ownerToken, nobody.alertId))!.avatarUrl).toBeUndefined();
    expect(host.hits.sort()).toEqual([`/avatar/${emailHash('jane.doe@acme.com')}?s=128&d=404`, `/avatar/${emailHash('nobody@acme.com')}?s=128&d=404`].sort());
  });

  it('what is not a small image is not copied: too large, HTML, a 404; the alerts keep initials', async () => {
    const host = await imageHost();
    h = await startHarness({ engine, env: { AVATAR_FETCH: '1', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    for (const path of ['/big.png', '/page', '/gone.png']) {
      const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { name: 'Bo', avatarUrl: `${host.base}${path}` } } });
      const { alertId } = await bodyOf.accepted(res);
      await h.services.avatars.idle();
      expect(await actorOf(seed.ownerToken, alertId)).toEqual({ name: 'Bo', initials: 'B' });
    }
    expect(host.hits).toEqual(['/big.png', '/page', '/gone.png']);
  });

  it('goes through the SSRF guard: a loopback avatarUrl is refused and never contacted', async () => {
    const host = await imageHost();
    h = await startHarness({ engine, env: { AVATAR_FETCH: '1' } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { name: 'Bo', avatarUrl: `${host.base}/pic.png` } } });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    await h.services.avatars.idle();
    expect(await actorOf(seed.ownerToken, alertId)).toEqual({ name: 'Bo', initials: 'B' });
    expect(host.hits).toEqual([]);
  });

  it('AVATAR_FETCH=0: nothing is downloaded, and the sent URL is still never shown', async () => {
    const host = await imageHost();
    h = await startHarness({ engine, env: { AVATAR_FETCH: '0', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1', AVATAR_BASE_URL: `${host.base}/avatar` } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: { email: 'bo@acme.com', avatarUrl: `${host.base}/pic.png` } } });
    const { alertId } = await bodyOf.accepted(res);
    await h.services.avatars.idle();
    expect((await actorOf(seed.ownerToken, alertId))!.avatarUrl).toBeUndefined();
    expect(host.hits).toEqual([]);
  });

  it('with no network at all, alerts are stored and simply get no avatar', async () => {
    // A port nothing listens on, and a very short timeout.
    h = await startHarness({ engine, env: { AVATAR_FETCH: '1', AVATAR_BASE_URL: 'http://127.0.0.1:9/avatar', AVATAR_TIMEOUT_MS: '200', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 't', actor: 'jane.doe@acme.com' } });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    await h.services.avatars.idle();
    expect(await actorOf(seed.ownerToken, alertId)).toEqual({ email: 'jane.doe@acme.com', name: 'Jane Doe', initials: 'JD', company: 'Acme' });
  });
});
