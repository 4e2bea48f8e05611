// The lifecycle keys on the feed (views/lifecycle-actions.tsx): a acknowledge, r resolve, s snooze
// (opens the header's menu), u reopen or unsnooze, on the current card (the buttons in its header). Also gives each lifecycle form the browser's time
// zone, so "Tomorrow 9:00" means 9:00 where the person is. Every button works without this file.
(function () {
  'use strict';
  var list = document.querySelector('.feed-list');
  if (!list) return;
  var zone = 'UTC';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch (_e) { /* keep UTC */ }
  function fillZones(root) {
    (root || document).querySelectorAll('input[data-time-zone]').forEach(function (input) { input.value = zone; });
  }
  fillZones();
  document.addEventListener('htmx:afterSwap', function () { fillZones(); });
  new MutationObserver(function () { fillZones(list); }).observe(list, { childList: true });

  function current() { return list.querySelector('.feed-entry.is-current'); }
  function press(entry, names) {
    var target = null;
    for (var i = 0; entry && !target && i < names.length; i++) target = entry.querySelector('.entry-actions [data-action="' + names[i] + '"]');
    if (!target) return false;
    if (target.tagName === 'DETAILS') {
      target.open = true;
      var first = target.querySelector('.entry-menu-choice');
      if (first) first.focus();
    } else {
      target.click();
    }
    return true;
  }
  var KEYS = { a: ['acknowledge'], r: ['resolve'], s: ['snooze'], u: ['reopen', 'unsnooze'] };
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (t && t.closest && t.closest('dialog[open]')) return;
    var names = KEYS[e.key];
    if (names && press(current(), names)) e.preventDefault();
    if (e.key === 'Escape') {
      list.querySelectorAll('details.entry-menu[open]').forEach(function (d) {
        d.open = false;
        d.querySelector('summary').focus();
      });
    }
  });
})();
