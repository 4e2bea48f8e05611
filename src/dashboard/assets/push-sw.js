// Alertbridge's service worker: shows Web Push notifications with every tab
// closed, and opens (or focuses) the alert's channel on click. Served at
// /push-sw.js so its scope is the whole dashboard; it caches nothing and
// handles no fetches.
'use strict';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** Only our own pages are opened: a payload URL on another origin falls back to the feed. */
function sameOriginUrl(raw) {
  try {
    const url = new URL(typeof raw === 'string' ? raw : '/feed', self.location.origin);
    return url.origin === self.location.origin ? url.href : new URL('/feed', self.location.origin).href;
  } catch {
    return new URL('/feed', self.location.origin).href;
  }
}

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const str = (v, fallback) => (typeof v === 'string' && v ? v : fallback);
  const silent = data.silent === true;
  const tag = str(data.tag, undefined);
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      // Someone is looking at the dashboard: the feed shows the alert live (and notifies by itself when enabled).
      if (windows.some((w) => w.focused)) return undefined;
      return self.registration.showNotification(str(data.title, 'Alertbridge'), {
        body: str(data.body, ''),
        tag,
        // A workflow run's "failed" replaces its "started" and must buzz again; a flood summary must not.
        renotify: Boolean(tag) && !silent,
        silent,
        timestamp: Date.now(),
        data: { url: sameOriginUrl(data.url), alertId: str(data.alertId, null), actionToken: str(data.actionToken, null) },
        // Acknowledge and Resolve without opening the dashboard, authorised by the payload's signed token.
        actions: typeof data.actionToken === 'string' ? [{ action: 'acknowledge', title: 'Acknowledge' }, { action: 'resolve', title: 'Resolve' }] : [],
      });
    }),
  );
});

/** A notification button: the signed token goes to the service, no window opens. */
function act(action, token) {
  return fetch(new URL('/alert-action/push', self.location.origin).href, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, action }),
    credentials: 'omit',
  }).catch(() => undefined);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  if ((event.action === 'acknowledge' || event.action === 'resolve') && typeof data.actionToken === 'string') {
    event.waitUntil(act(event.action, data.actionToken));
    return;
  }
  const target = sameOriginUrl(event.notification.data && event.notification.data.url);
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
      const path = new URL(target).pathname;
      const exact = windows.find((w) => new URL(w.url).pathname === path);
      if (exact) return exact.focus();
      const ours = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (ours) {
        const moved = await ours.navigate(target);
        return (moved || ours).focus();
      }
      return self.clients.openWindow(target);
    }),
  );
});
