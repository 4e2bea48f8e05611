import { createECDH, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

const UA = 'Mozilla/5.0 (Linux; Android 15) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Mobile Safari/537.36';

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function browserSubscription(endpoint = `https://fcm.googleapis.com/fcm/send/${randomBytes(12).toString('base64url')}`) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
}

async function signedIn(env: Record<string, string> = {}) {
  h = await startDashboard({ serve: false, env });
  const seed = await seedWorkspace(h.services);
  const c = new DashClient(h);
  await c.signInWithLink(seed.member.id);
  await c.get('/profile');
  return { h, seed, c };
}

/** A JSON POST as push-settings.js sends it: session cookie, Origin, X-CSRF-Token. */
async function postJson(h: DashHarness, c: DashClient, path: string, body: unknown, o: { csrf?: string | null; origin?: string; type?: string } = {}) {
  const headers: Record<string, string> = {
    cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    origin: o.origin ?? h.origin,
    accept: 'application/json',
    'content-type': o.type ?? 'application/json',
    'user-agent': UA,
  };
  const csrf = o.csrf === undefined ? c.csrf : o.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  const res = await h.app.request(path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { res, body: /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text };
}

describe('the service worker', () => {
  it('is served from the root with the dashboard\'s strict headers and no long cache', async () => {
    h = await startDashboard({ serve: false });
    const res = await h.app.request('/push-sw.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('service-worker-allowed')).toBe('/');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    expect(text).toContain("addEventListener('push'");
    expect(text).toContain("addEventListener('notificationclick'");
  });
});

describe('push subscriptions in Profile', () => {
  it('subscribes this browser, lists the device and removes it', async () => {
    const { h, c, seed } = await signedIn();
    const page = await c.get('/profile');
    expect(page.html).toContain('Push notifications');
    expect(page.html).toContain(`data-public-key="${h.services.push.vapid.publicKey}"`);
    expect(page.html).toContain('No device gets push notifications yet.');

    const sub = browserSubscription();
    const first = await postJson(h, c, '/push/subscriptions', sub);
    expect(first.res.status).toBe(201);
    expect(first.body).toEqual({ id: expect.stringMatching(/^psub_/), device: 'Chrome on Android', created: true });
    const again = await postJson(h, c, '/push/subscriptions', sub);
    expect(again.res.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);

    const listed = await c.get('/profile');
    expect(listed.html).toContain('Chrome on Android');
    expect(listed.html).toContain(`aria-label="Remove Chrome on Android, added`);
    expect(listed.html).not.toContain(sub.keys.auth);
    expect(listed.html).not.toContain(sub.endpoint);

    // Another user cannot remove it by id.
    const other = new DashClient(h);
    await other.signInWithLink(seed.owner.id);
    await other.get('/profile');
    expect((await other.post(`/push/devices/${first.body.id}/delete`)).res.status).toBe(303);
    expect(await h.services.push.subscriptions.list(seed.member.id)).toHaveLength(1);

    // Post/Redirect/Get: the notice comes through a flash, shown once (no ?push-removed in the URL).
    const removed = await c.submit(`/push/devices/${first.body.id}/delete`);
    expect(removed.location).toMatch(/^\/profile\?flash=[A-Za-z0-9_-]{22}#push$/);
    expect(removed.html).toContain('Device removed: it gets no more push notifications.');
    expect((await c.get(removed.location!)).html).not.toContain('Device removed');
    expect(await h.services.push.subscriptions.list(seed.member.id)).toEqual([]);

    await postJson(h, c, '/push/subscriptions', sub);
    const off = await postJson(h, c, '/push/unsubscribe', { endpoint: sub.endpoint });
    expect(off.body).toEqual({ removed: true });
    expect(await h.services.push.subscriptions.list(seed.member.id)).toEqual([]);
  });

  it('refuses a missing CSRF token, another origin and a signed-out browser, and stores nothing', async () => {
    const { h, c, seed } = await signedIn();
    const sub = browserSubscription();
    expect((await postJson(h, c, '/push/subscriptions', sub, { csrf: null })).res.status).toBe(403);
    expect((await postJson(h, c, '/push/subscriptions', sub, { origin: 'https://evil.example' })).res.status).toBe(403);
    expect((await postJson(h, new DashClient(h), '/push/subscriptions', sub, { csrf: 'x' })).res.status).toBe(403);
    expect(await h.services.push.subscriptions.list(seed.member.id)).toEqual([]);
  });

  it('guards the endpoint against SSRF and answers bad bodies with problem documents', async () => {
    const { h, c, seed } = await signedIn();
    const cases: [unknown, number, RegExp][] = [
      [browserSubscription('http://push.example.com/x'), 400, /endpoint must be https/],
      [browserSubscription('https://127.0.0.1:8443/x'), 400, /endpoint address is loopback/],
      [browserSubscription('https://169.254.169.254/latest'), 400, /endpoint address is link-local/],
      [browserSubscription('https://[::1]/x'), 400, /endpoint address is loopback/],
      [browserSubscription('https://localhost/x'), 400, /public name/],
      [browserSubscription('https://user:pw@push.example.com/x'), 400, /credentials/],
      [browserSubscription(`https://push.example.com/${'a'.repeat(1100)}`), 400, /endpoint/],
      [{ ...browserSubscription(), keys: { p256dh: 'AAAA', auth: 'AAAA' } }, 400, /keys\.p256dh/],
      [{ endpoint: 'https://push.example.com/x' }, 400, /keys/],
      ['[1,2', 400, /not JSON/],
    ];
    for (const [body, status, detail] of cases) {
      const r = await postJson(h, c, '/push/subscriptions', body);
      expect(r.res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(r.res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.detail).toMatch(detail);
    }
    expect((await postJson(h, c, '/push/subscriptions', 'endpoint=x', { type: 'application/x-www-form-urlencoded' })).res.status).toBe(415);
    expect((await postJson(h, c, '/push/subscriptions', JSON.stringify({ pad: 'x'.repeat(5000) }))).res.status).toBe(413);
    expect(await h.services.push.subscriptions.list(seed.member.id)).toEqual([]);
  });
});
