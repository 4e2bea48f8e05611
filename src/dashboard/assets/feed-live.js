// The feed's live updates. One tab per browser holds the EventSource (the
// leader, elected with the Web Locks API: the lock passes to a waiting tab when
// the leader closes) and relays every event to the other tabs over a
// BroadcastChannel, so ten open tabs use one connection, not ten. EventSource
// resumes with Last-Event-ID by itself after a network drop.
(function () {
  'use strict';
  var list = document.querySelector('.feed-list');
  // Only a feed listens (search shares this bundle, not the stream).
  var layout = document.querySelector('.feed-layout[data-stream]');
  var feed = window.AlertbridgeFeed;
  if (!list || !layout || !feed) return;
  var onlyChannel = layout.getAttribute('data-feed-channel') || null;
  var params = new URLSearchParams(location.search);
  var level = params.get('level');
  var unreadOnly = params.get('unread') === '1' || location.pathname === '/feed/unread';
  var membersOnly = params.get('members') === '1';
  var live = document.getElementById('feed-live');

  function announce(text) { if (live) live.textContent = text; }

  function fits(ev) {
    if (onlyChannel && ev.channelId !== onlyChannel) return false;
    if (level && ev.level !== level) return false;
    if (unreadOnly && ev.isRead) return false;
    if (membersOnly && ev.role !== 'member') return false;
    return true;
  }

  function fragment(html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    return t.content.firstElementChild;
  }

  function onCard(ev) {
    feed.setCount(ev.channelId, ev.unread);
    feed.recountTotal();
    var existing = list.querySelector('.feed-entry[data-alert-id="' + ev.id + '"]');
    if (ev.type === 'alert.deleted') {
      if (existing) existing.remove();
      return;
    }
    if (ev.threadHead && !unreadOnly) {
      // A reply in a folded thread: its head shows the new "N replies" where it is; nothing jumps to the top.
      var head = list.querySelector('.feed-entry[data-alert-id="' + ev.threadHead.id + '"]');
      var headEl = head && fragment(ev.threadHead.html);
      if (!headEl) return;
      var headWasCurrent = feed.isCurrent(head);
      head.replaceWith(headEl);
      if (headWasCurrent) feed.focusEntry(headEl);
      if (window.htmx) window.htmx.process(headEl);
      feed.refreshTimes(headEl);
      return;
    }
    var el = fragment(ev.html);
    if (!el) return;
    if (existing) {
      // In place: a workflow run's progress, an edited message, a read change.
      if (!fits(ev) && unreadOnly) { existing.remove(); return; }
      var wasCurrent = feed.isCurrent(existing);
      existing.replaceWith(el);
      if (wasCurrent) feed.focusEntry(el);
    } else if (ev.type === 'alert.created' && fits(ev)) {
      list.insertBefore(el, list.firstElementChild);
      var empty = document.querySelector('.feed-empty');
      if (empty) empty.remove();
      announce('New alert: ' + (el.querySelector('h2, .ab-title') || el).textContent.trim());
    } else {
      return;
    }
    if (window.htmx) window.htmx.process(el);
    feed.refreshTimes(el);
    // feed-view.js: the "N new alerts" pill, and bringing a test alert into view.
    if (!existing) document.dispatchEvent(new CustomEvent('ab:alert-added', { detail: el }));
  }

  function onRead(d) {
    feed.setCount(d.channelId, d.unread);
    feed.recountTotal();
    // Read everywhere (another tab, the API): the cards of that channel follow.
    if (d.unread === 0) {
      list.querySelectorAll('.feed-entry[data-channel-id="' + d.channelId + '"][data-read="false"]').forEach(function (entry) {
        feed.showRead(entry, true);
        if (unreadOnly) entry.remove();
      });
    }
  }

  function handle(type, data) {
    if (type === 'card') onCard(JSON.parse(data));
    else if (type === 'read.updated') onRead(JSON.parse(data));
    else if (type === 'resync') location.reload();
  }

  // Browser notifications while a tab is open: only the leader shows them (one per alert, not one per tab),
  // only for alerts passing the user's level for the channel (the server decides: ev.notify).
  var canNotify = 'Notification' in window;
  var enable = document.getElementById('enable-notifications');
  if (enable && canNotify && Notification.permission === 'default') {
    enable.hidden = false;
    enable.addEventListener('click', function () {
      Notification.requestPermission().then(function () { enable.hidden = true; });
    });
  }
  function notify(ev) {
    if (!canNotify || Notification.permission !== 'granted' || !ev.notify) return;
    var label = document.querySelector('[data-label-for="' + ev.channelId + '"]');
    var n = new Notification(ev.summary || 'New alert', { tag: ev.id, body: label ? label.getAttribute('data-label') + ' · Alertbridge' : 'Alertbridge' });
    n.onclick = function () {
      window.focus();
      location.href = '/feed#alert-' + ev.id;
    };
  }

  var bc = 'BroadcastChannel' in window ? new BroadcastChannel('alertbridge-feed') : null;
  if (bc) bc.onmessage = function (m) { if (m.data && m.data.type) handle(m.data.type, m.data.data); };

  function lead() {
    return new Promise(function () {
      var es = new EventSource('/feed/stream');
      layout.setAttribute('data-live', 'connecting');
      es.onopen = function () { layout.setAttribute('data-live', 'open'); };
      es.onerror = function () { layout.setAttribute('data-live', 'reconnecting'); };
      ['card', 'read.updated', 'resync'].forEach(function (type) {
        es.addEventListener(type, function (e) {
          handle(type, e.data);
          if (type === 'card') notify(JSON.parse(e.data));
          if (bc) bc.postMessage({ type: type, data: e.data });
        });
      });
      // The promise never settles: the lock is held until this tab goes away.
    });
  }

  if (navigator.locks && bc) navigator.locks.request('alertbridge-feed-stream', lead);
  else lead();
})();
