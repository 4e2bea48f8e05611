// The feed's behaviour: relative times, filters that apply on change, unread
// badges and the title count kept in step with read changes, and keyboard
// shortcuts. Served as a file (the CSP allows no inline script); every control
// it enhances is a plain link or form that works without it.
(function () {
  'use strict';
  var list = document.querySelector('.feed-list');
  if (!list) return;

  // "5 min ago", exact time on hover (the <time> title, rendered by the server).
  var units = [['year', 31536e6], ['month', 2592e6], ['day', 864e5], ['hour', 36e5], ['minute', 6e4]];
  var rtf = window.Intl && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : null;
  function relative(iso) {
    var ms = Date.parse(iso) - Date.now();
    if (!rtf || isNaN(ms)) return null;
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(ms) >= units[i][1]) return rtf.format(Math.round(ms / units[i][1]), units[i][0]);
    }
    return 'just now';
  }
  function refreshTimes(root) {
    (root || list).querySelectorAll('time[datetime]').forEach(function (t) {
      var text = relative(t.getAttribute('datetime'));
      if (text) t.textContent = text;
    });
  }
  refreshTimes();
  setInterval(refreshTimes, 30000);

  document.querySelectorAll('input[type="checkbox"][data-autosubmit]').forEach(function (box) {
    box.addEventListener('change', function () { box.form.submit(); });
  });

  // A filtered page that came back empty keeps looking further back ("Load older" loads itself when revealed);
  // once the last older page has come without a further "Load older", the line says what was found: nothing.
  var empty = document.querySelector('.feed-empty[data-done-text]');
  if (empty) {
    // Watched on the list itself: htmx's events fire on the swapped-out link, which has left the document by then.
    new MutationObserver(function () {
      if (!list.querySelector('.load-older, .feed-entry')) empty.textContent = empty.getAttribute('data-done-text');
    }).observe(list, { childList: true });
  }

  var current = null;

  // Badges: one per channel plus the total ("*"); the title starts with "(n) " while anything is unread.
  function badge(id) { return document.querySelector('.badge[data-unread-for="' + id + '"]'); }
  function setCount(id, n) {
    var b = badge(id);
    if (!b) return;
    b.textContent = n > 999 ? '999+' : String(n);
    b.hidden = n === 0;
    b.setAttribute('data-count', String(n));
    var link = document.querySelector('[data-label-for="' + id + '"]');
    if (link) link.setAttribute('aria-label', link.getAttribute('data-label') + ', ' + (n === 0 ? 'no unread alerts' : n === 1 ? '1 unread alert' : n + ' unread alerts'));
    if (id === '*') document.title = (n > 0 ? '(' + n + ') ' : '') + document.title.replace(/^\(\d+\) /, '');
  }
  // The total is the sum of the channel badges (a live event brings one channel's count).
  function recountTotal() {
    var n = 0;
    document.querySelectorAll('.badge[data-unread-for]').forEach(function (b) {
      if (b.getAttribute('data-unread-for') !== '*') n += Number(b.getAttribute('data-count') || b.textContent) || 0;
    });
    setCount('*', n);
  }
  // A card shown as read or unread without a round trip (read elsewhere).
  function showRead(entry, read) {
    entry.setAttribute('data-read', read ? 'true' : 'false');
    var card = entry.querySelector('.ab-card');
    if (card) card.setAttribute('data-read', read ? 'true' : 'false');
    var input = entry.querySelector('input[name="read"]');
    if (input) input.value = read ? '0' : '1';
    var btn = entry.querySelector('[data-action="toggle-read"]');
    if (btn) {
      // The same icon button the server renders for that state (views/entry-actions.tsx).
      btn.setAttribute('aria-label', read ? 'Mark unread' : 'Mark read');
      btn.title = (read ? 'Mark unread' : 'Mark read') + ' (e)';
      var svg = btn.querySelector('svg');
      if (svg) svg.innerHTML = read ? '<circle cx="8" cy="8" r="3.5"></circle>' : '<path d="M3.5 8.5l3 3 6-7"></path>';
    }
  }

  // After a read button: the server's count for the channel (absolute, so the stream's
  // read.updated for the same change can arrive before or after without double counting).
  document.body.addEventListener('ab-unread', function (e) {
    setCount(e.detail.channelId, e.detail.unread);
    recountTotal();
  });
  var swapped = new WeakMap();
  document.addEventListener('htmx:beforeSwap', function (e) {
    var el = e.detail.target;
    if (!el || !el.classList || !el.classList.contains('feed-entry')) return;
    var id = el.getAttribute('data-alert-id');
    // The live stream may have replaced the entry while the request ran (a status change is
    // broadcast too): swap the one on the page, not the detached one htmx aimed at.
    if (!document.body.contains(el)) {
      var live = list.querySelector('.feed-entry[data-alert-id="' + id + '"]');
      if (live) e.detail.target = live;
      else e.detail.shouldSwap = false;
    }
    swapped.set(e.detail.xhr, id);
  });
  document.addEventListener('htmx:afterSwap', function (e) {
    refreshTimes();
    var id = swapped.get(e.detail.xhr);
    var entry = id && list.querySelector('.feed-entry[data-alert-id="' + id + '"]');
    if (entry && (!current || !document.body.contains(current) || current.getAttribute('data-alert-id') === id)) focusEntry(entry);
  });

  window.AlertbridgeFeed = { setCount: setCount, refreshTimes: refreshTimes, recountTotal: recountTotal, showRead: showRead, focusEntry: function (el) { focusEntry(el); },
    // Current without the ring too (a click inside a card): a live copy that replaces it before the
    // button's own answer (whose htmx events then fire on a detached element) keeps the focus.
    isCurrent: function (el) { return el === current; } };

  // Keyboard: j/k move, o opens the link, e toggles read, ? lists the shortcuts.

  function entries() { return Array.prototype.slice.call(list.querySelectorAll('.feed-entry')); }
  function focusEntry(el) {
    if (!el) return;
    if (current) current.classList.remove('is-current');
    current = el;
    el.classList.add('is-current');
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: 'nearest' });
  }
  function markRead(el) {
    var btn = el && el.querySelector('[data-action="toggle-read"]');
    if (btn) btn.click();
  }
  var dialog = document.getElementById('shortcuts');
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var all = entries();
    var i = current ? all.indexOf(current) : -1;
    if (e.key === 'j') { focusEntry(all[Math.min(i + 1, all.length - 1)]); e.preventDefault(); }
    else if (e.key === 'k') { focusEntry(all[Math.max(i - 1, 0)]); e.preventDefault(); }
    else if (e.key === 'e' && current) { markRead(current); e.preventDefault(); }
    else if (e.key === 'o' && current) {
      var link = current.querySelector('.ab-card a[href]');
      if (link) {
        if (current.getAttribute('data-read') === 'false') markRead(current);
        window.open(link.href, '_blank', 'noopener');
      }
      e.preventDefault();
    } else if (e.key === '?' && dialog) { dialog.showModal(); e.preventDefault(); }
  });
  list.addEventListener('click', function (e) {
    var entry = e.target.closest && e.target.closest('.feed-entry');
    if (!entry) return;
    current = entry;
    // Following a card's link counts as reading it.
    if (e.target.closest('.ab-card a[href]') && entry.getAttribute('data-read') === 'false') markRead(entry);
  });
  if (dialog) dialog.querySelector('[data-close]').addEventListener('click', function () { dialog.close(); });
})();
