// Alertbridge's service worker, registered by every signed-in page (app.js).
// Served at /push-sw.js so its scope is the whole dashboard. Two jobs:
// - Web Push: shows notifications with every tab closed, and opens (or
//   focuses) the alert's channel on click.
// - The app shell offline: the last feed page loaded, and the versioned
//   stylesheets and scripts it uses, are kept in the Cache API, so a reload
//   without a network shows that feed (marked data-served-offline, which
//   app.js turns into an "offline" notice) instead of the browser's error.
//   Everything else goes to the network untouched. Signing out, or a feed
//   request answered by the sign-in page, empties the cache: a shared device
//   keeps no one's alerts.
'use strict';

const SHELL_CACHE = 'alertbridge-shell-v1';
/** The one page kept: the last feed loaded (any of /feed, /feed/unread, /feed/c/…). */
const LAST_FEED = '/__last-feed';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) =>
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('alertbridge-shell-') && k !== SHELL_CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  ),
);

const isFeedPage = (url) => url.pathname === '/feed' || url.pathname === '/feed/unread' || url.pathname.startsWith('/feed/c/');
const isShellFile = (url) => url.pathname.startsWith('/assets/') || url.pathname.startsWith('/icons/') || url.pathname === '/manifest.webmanifest';

/** Keeps a feed page and every versioned file it links to (their names carry a content hash, so they never go stale). */
async function keepFeed(response) {
  const html = await response.clone().text();
  const cache = await caches.open(SHELL_CACHE);
  await cache.put(LAST_FEED, new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }));
  const files = [...new Set(html.match(/\/assets\/[\w.-]+/g) || [])];
  await Promise.all(files.map((f) => cache.match(f).then((hit) => hit || cache.add(f).catch(() => undefined))));
}

async function navigate(request) {
  const url = new URL(request.url);
  try {
    const response = await fetch(request);
    if (isFeedPage(url)) {
      if (response.ok && !response.redirected) await keepFeed(response).catch(() => undefined);
      // Sent to the sign-in page: nobody is signed in here any more.
      else if (response.redirected || response.type === 'opaqueredirect') await caches.delete(SHELL_CACHE);
    }
    return response;
  } catch (err) {
    const cache = await caches.open(SHELL_CACHE);
    const last = await cache.match(LAST_FEED);
    if (!last) throw err;
    const html = (await last.text()).replace('<html lang="en"', '<html lang="en" data-served-offline');
    return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === 'POST' && url.pathname === '/sign-out') {
    event.respondWith(caches.delete(SHELL_CACHE).then(() => fetch(request)));
    return;
  }
  if (request.method !== 'GET') return;
  if (request.mode === 'navigate') event.respondWith(navigate(request));
  else if (isShellFile(url)) event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
});

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
