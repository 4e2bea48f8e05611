// The "Push notifications" section of Profile: subscribes this browser through
// its push service (PushManager) and registers the subscription with the
// server; turns it off again. Every request carries the session's CSRF token.
'use strict';

(() => {
  const root = document.querySelector('[data-push-settings]');
  if (!root) return;
  const status = root.querySelector('[data-push-status]');
  const on = root.querySelector('[data-push-on]');
  const off = root.querySelector('[data-push-off]');
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
  const key = root.getAttribute('data-public-key') ?? '';

  const say = (text, state) => {
    status.textContent = text;
    root.setAttribute('data-state', state);
  };
  const show = (subscribed) => {
    on.hidden = subscribed;
    off.hidden = !subscribed;
  };
  const post = async (path, body) => {
    const res = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      let detail = `the server answered ${res.status}`;
      try {
        detail = (await res.json()).detail ?? detail;
      } catch {
        // keep the status
      }
      throw new Error(detail);
    }
    return res.json();
  };
  const keyBytes = (b64) => {
    const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (b64.length % 4)) % 4));
    return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
  };

  if (!window.isSecureContext || !('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    say(
      window.isSecureContext
        ? 'This browser does not support push notifications.'
        : 'Push notifications need a secure address: open the dashboard over https (or on localhost).',
      'unsupported',
    );
    on.disabled = true;
    show(false);
    return;
  }

  const registration = () => navigator.serviceWorker.register('/push-sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready);

  const refresh = async () => {
    if (Notification.permission === 'denied') {
      say('Notifications are blocked for this site. Allow them in the browser\'s site settings, then reload.', 'denied');
      on.disabled = true;
      show(false);
      return;
    }
    const reg = await navigator.serviceWorker.getRegistration('/');
    const sub = reg ? await reg.pushManager.getSubscription() : null;
    if (sub) {
      // Re-registering is idempotent: it repairs a row the server dropped (a 410, another user) and follows rotated keys.
      await post('/push/subscriptions', sub.toJSON()).catch(() => undefined);
      say('This browser gets push notifications.', 'subscribed');
    } else {
      say('This browser does not get push notifications.', 'off');
    }
    show(Boolean(sub));
  };

  on.addEventListener('click', async () => {
    on.disabled = true;
    try {
      say('Asking for permission…', 'working');
      if ((await Notification.requestPermission()) !== 'granted') return void (await refresh());
      const reg = await registration();
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
      await post('/push/subscriptions', sub.toJSON());
      location.reload();
    } catch (err) {
      say(`Could not turn push on: ${err instanceof Error ? err.message : String(err)}`, 'error');
    } finally {
      on.disabled = false;
    }
  });

  off.addEventListener('click', async () => {
    off.disabled = true;
    try {
      const reg = await navigator.serviceWorker.getRegistration('/');
      const sub = reg ? await reg.pushManager.getSubscription() : null;
      if (sub) {
        await post('/push/unsubscribe', { endpoint: sub.endpoint });
        await sub.unsubscribe();
      }
      location.reload();
    } catch (err) {
      say(`Could not turn push off: ${err instanceof Error ? err.message : String(err)}`, 'error');
    } finally {
      off.disabled = false;
    }
  });

  void refresh().catch((err) => say(`Could not read this browser's push state: ${err.message}`, 'error'));
})();
