import { createECDH, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { accepted, bodyOf } from '../helpers/bodies.js';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, signInAs } from './helpers.js';

/**
 * Profile's push section in a real Chromium. Headless Chromium answers
 * Notification.permission with "denied" whatever the context grants, and
 * PushManager.subscribe() needs the vendor's push service, which is out of
 * reach here: the first test checks what such a browser shows; the second
 * stands in for the browser's push service only (PushManager and the
 * permission, with keys the test makes) so our page script, the CSRF-protected
 * endpoint and the device list run for real. Delivery itself is tested
 * against a real encrypted push in test/notify/push.test.ts.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

const state = (page: Page) => page.locator('[data-push-settings]').getAttribute('data-state');

describe('push notifications in Chromium', () => {
  it('registers the service worker at the root scope, and says when the browser blocks notifications', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.goto(`${h.origin}/profile`);
    await page.locator('[data-push-settings][data-state]').waitFor();
    expect(await state(page)).toBe('denied');
    await page.getByText('Notifications are blocked for this site').waitFor();
    expect(await page.getByRole('button', { name: 'Turn on for this browser' }).isDisabled()).toBe(true);
    // The worker script passes a real browser's checks (MIME type, scope, CSP) and installs.
    const scope = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.register('/push-sw.js', { scope: '/' });
      await navigator.serviceWorker.ready;
      return reg.scope;
    });
    expect(scope).toBe(`${h.origin}/`);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('turns push on and off for this browser through the page', async () => {
    const { context, page } = await newPage(browser);
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const fake = {
      endpoint: `https://push.example.net/send/${randomBytes(9).toString('base64url')}`,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    };
    // The browser's push service, stood in for: permission granted, subscribe() answers with the test's keys.
    await context.addInitScript((f) => {
      Object.defineProperty(Notification, 'permission', { get: () => 'granted' });
      Notification.requestPermission = async () => 'granted';
      const make = () => ({
        endpoint: f.endpoint,
        toJSON: () => ({ endpoint: f.endpoint, expirationTime: null, keys: { p256dh: f.p256dh, auth: f.auth } }),
        unsubscribe: async () => {
          sessionStorage.removeItem('fake-push');
          return true;
        },
      });
      PushManager.prototype.subscribe = async function (opts?: PushSubscriptionOptionsInit) {
        const key = new Uint8Array(opts!.applicationServerKey as ArrayBuffer);
        sessionStorage.setItem('fake-push', btoa(String.fromCharCode(...key)));
        return make() as unknown as PushSubscription;
      };
      PushManager.prototype.getSubscription = async () => (sessionStorage.getItem('fake-push') ? (make() as unknown as PushSubscription) : null);
    }, fake);
    await signIn(page, seed.member.id);
    await page.goto(`${h.origin}/profile`);
    await page.getByText('This browser does not get push notifications.').waitFor();
    await page.getByRole('button', { name: 'Turn on for this browser' }).click();
    await page.getByText('This browser gets push notifications.').waitFor();
    // The page subscribed with the server's VAPID public key.
    const key = await page.evaluate(() => sessionStorage.getItem('fake-push'));
    expect(Buffer.from(key!, 'base64').toString('base64url')).toBe(h.services.push.vapid.publicKey);
    const row = page.getByRole('row', { name: /Chrome on Linux/ });
    await row.waitFor();
    expect(await h.services.push.subscriptions.list(seed.member.id)).toHaveLength(1);
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    await page.locator('#push').scrollIntoViewIfNeeded();
    await screenshots(page, 'push-settings');

    await page.getByRole('button', { name: 'Turn off for this browser' }).click();
    await page.getByText('This browser does not get push notifications.').waitFor();
    await page.getByText('No device gets push notifications yet.').waitFor();
    expect(await h.services.push.subscriptions.list(seed.member.id)).toEqual([]);
    await context.close();
  });

  it("a notification's Acknowledge button, dispatched in the service worker, acknowledges the alert as the notified person", async () => {
    const res = await fetch(`${h.origin}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Queue backlog over 10k', level: 'ERROR' }) });
    const { alertId } = accepted(await bodyOf.webhookAnswer(res));
    // The token the push payload carries for this member (push/start.ts signs it so).
    const actionToken = h.services.alertActionLinks.token(seed.member.id, alertId, 'any', 'push');
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    const workerReady = context.serviceWorkers()[0] ? Promise.resolve(context.serviceWorkers()[0]!) : context.waitForEvent('serviceworker');
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('/push-sw.js', { scope: '/' });
      await navigator.serviceWorker.ready;
    });
    const worker = await workerReady;
    // Headless Chromium shows no notification (permission "denied"), so the click is dispatched in the
    // worker as the browser would: a notificationclick whose notification carries the payload's data.
    // A synthetic event's own waitUntil refuses (it is untrusted), so the handler's promise is awaited here.
    const closed = await worker.evaluate(
      async ({ alertId, actionToken }) => {
        const scope = globalThis as unknown as { ExtendableEvent: typeof Event; dispatchEvent(e: Event): boolean };
        let pending: Promise<unknown> = Promise.resolve();
        let closed = false;
        const event = new scope.ExtendableEvent('notificationclick');
        Object.defineProperties(event, {
          action: { value: 'acknowledge' },
          notification: { value: { data: { url: '/feed', alertId, actionToken }, close: () => (closed = true) } },
          waitUntil: { value: (p: Promise<unknown>) => (pending = p) },
        });
        scope.dispatchEvent(event);
        await pending;
        return closed;
      },
      { alertId, actionToken },
    );
    expect(closed).toBe(true);
    const alert = await bodyOf.alert(await fetch(`${h.origin}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${seed.memberToken}` } }));
    expect(alert.status).toBe('acknowledged');
    expect(alert.acknowledgedBy?.name).toBe('Max Member');
    const history = (await (await fetch(`${h.origin}/api/alerts/${alertId}/history`, { headers: { authorization: `Bearer ${seed.memberToken}` } })).json()) as { history: { action: string; via: string }[] };
    expect(history.history.map((e) => `${e.action} via ${e.via}`)).toContain('acknowledged via push');
    // The token works once: a second click changes nothing and is refused.
    const again = await fetch(`${h.origin}/alert-action/push`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: actionToken, action: 'resolve' }) });
    expect(again.status).toBe(410);
    await context.close();
  });
});
