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
    (root || document).querySelectorAll('.feed-list time[datetime]').forEach(function (t) {
      var text = relative(t.getAttribute('datetime'));
      if (text) t.textContent = text;
    });
  }
  refreshTimes();
  setInterval(refreshTimes, 30000);

  document.querySelectorAll('input[type="checkbox"][data-autosubmit]').forEach(function (box) {
    box.addEventListener('change', function () { box.form.submit(); });
  });

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
  function count(id) {
    var b = badge(id);
    return b ? Number(b.getAttribute('data-count') || b.textContent) || 0 : 0;
  }
  function adjust(channelId, delta) {
    setCount(channelId, Math.max(0, count(channelId) + delta));
    setCount('*', Math.max(0, count('*') + delta));
  }
  window.AlertbridgeFeed = { setCount: setCount, adjust: adjust, refreshTimes: refreshTimes };

  // An entry swapped in after its read button: move the badges by the change.
  var before = new WeakMap();
  document.addEventListener('htmx:beforeSwap', function (e) {
    var el = e.detail.target;
    if (el && el.classList && el.classList.contains('feed-entry')) {
      before.set(e.detail.xhr, { id: el.getAttribute('data-alert-id'), read: el.getAttribute('data-read') });
    }
  });
  document.addEventListener('htmx:afterSwap', function (e) {
    refreshTimes();
    var was = before.get(e.detail.xhr);
    if (!was) return;
    var entry = list.querySelector('.feed-entry[data-alert-id="' + was.id + '"]');
    if (!entry) return;
    var now = entry.getAttribute('data-read');
    if (now !== was.read) adjust(entry.getAttribute('data-channel-id'), now === 'true' ? -1 : 1);
    if (entry === current || !current || !document.body.contains(current)) focusEntry(entry);
  });

  // Keyboard: j/k move, o opens the link, e toggles read, ? lists the shortcuts.
  var current = null;
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
