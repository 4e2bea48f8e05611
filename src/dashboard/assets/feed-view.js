// How the feed reads: compact rows (the list density) that open in
// place, long messages clamped with "Show more", chat messages grouped by turn, the "N new alerts"
// pill, the unread count on the favicon, and the test alert's arrival. Served as a file (the CSP
// allows no inline script); the density buttons are a plain form.
(function () {
  'use strict';
  var list = document.querySelector('.feed-list');
  if (!list) return;
  var GROUP_MS = 5 * 60 * 1000;
  var expanded = new Set();

  function entries() { return Array.prototype.slice.call(list.querySelectorAll('.feed-entry')); }
  function compact() { return list.getAttribute('data-density') === 'compact'; }

  // ---- Long messages: about eight lines, then "Show more" where the text is really cut.
  list.setAttribute('data-clamp', '');
  function clamp(root) {
    (root || list).querySelectorAll('.ab-message').forEach(function (msg) {
      var next = msg.nextElementSibling;
      if (next && next.classList.contains('show-more')) return;
      if (msg.classList.contains('is-unclamped') || msg.clientHeight === 0 || msg.scrollHeight <= msg.clientHeight + 1) return;
      var btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'show-more';
      btn.textContent = 'Show more';
      btn.setAttribute('aria-expanded', 'false');
      msg.after(btn);
    });
  }
  list.addEventListener('click', function (e) {
    var btn = e.target.closest && e.target.closest('.show-more');
    if (!btn) return;
    var msg = btn.previousElementSibling;
    var open = msg.classList.toggle('is-unclamped');
    btn.textContent = open ? 'Show less' : 'Show more';
    btn.setAttribute('aria-expanded', open ? 'true' : 'false');
  });

  // ---- Compact rows open their card in place (a click, or Enter on the current entry).
  function setExpanded(entry, open) {
    var id = entry.getAttribute('data-alert-id');
    // An attribute, not a class: htmx's settle step puts a swapped entry's old classes back, then the new ones.
    if (open) entry.setAttribute('data-expanded', 'true');
    else entry.removeAttribute('data-expanded');
    var row = entry.querySelector('.entry-row');
    if (row) row.setAttribute('aria-expanded', open ? 'true' : 'false');
    if (open) { expanded.add(id); clamp(entry); } else expanded.delete(id);
  }
  list.addEventListener('click', function (e) {
    var row = e.target.closest && e.target.closest('.entry-row');
    if (!row) return;
    var entry = row.closest('.feed-entry');
    setExpanded(entry, !entry.hasAttribute('data-expanded'));
  });
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' || !compact() || e.ctrlKey || e.metaKey || e.altKey) return;
    var entry = e.target.classList && e.target.classList.contains('feed-entry') ? e.target : null;
    if (!entry) return;
    setExpanded(entry, !entry.hasAttribute('data-expanded'));
    e.preventDefault();
  });

  // ---- Chat: consecutive messages of one author within five minutes are one turn (name and avatar once, on top).
  function regroup() {
    var above = null;
    entries().forEach(function (entry) {
      var author = entry.getAttribute('data-author');
      var continues = !!(author && above && above.getAttribute('data-author') === author &&
        above.getAttribute('data-channel-id') === entry.getAttribute('data-channel-id') &&
        Math.abs(Date.parse(above.getAttribute('data-time')) - Date.parse(entry.getAttribute('data-time'))) <= GROUP_MS);
      if (continues) entry.setAttribute('data-continues', 'true');
      else entry.removeAttribute('data-continues');
      above = entry;
    });
  }

  // Entries come and go (live cards, read buttons' swaps, older pages): keep what the reader opened, clamp, regroup.
  new MutationObserver(function () {
    entries().forEach(function (entry) {
      if (expanded.has(entry.getAttribute('data-alert-id')) && !entry.hasAttribute('data-expanded')) setExpanded(entry, true);
    });
    clamp();
    regroup();
  }).observe(list, { childList: true });
  clamp();

  // ---- "N new alerts": alerts that arrived above a reader who scrolled down.
  var pill = document.getElementById('new-alerts');
  var unseen = [];
  function hidePill() { unseen = []; if (pill) pill.hidden = true; }
  function showPill() {
    if (!pill) return;
    pill.querySelector('.new-alerts-text').textContent = unseen.length === 1 ? '1 new alert' : unseen.length + ' new alerts';
    pill.hidden = false;
  }
  if (pill) {
    pill.addEventListener('click', function () {
      var first = unseen[unseen.length - 1];
      hidePill();
      window.scrollTo(0, 0);
      if (first && window.AlertbridgeFeed) window.AlertbridgeFeed.focusEntry(first);
    });
    window.addEventListener('scroll', function () {
      if (unseen.length && unseen[unseen.length - 1].getBoundingClientRect().bottom > 0) hidePill();
    }, { passive: true });
  }

  // ---- The test alert: when it arrives, it is brought into view wherever the reader is on the page.
  var awaitingTest = false;
  var sendForm = document.querySelector('.onboarding-send');
  // Armed before the POST leaves: the stream can bring the card before the POST's answer is handled.
  document.addEventListener('htmx:beforeRequest', function (e) {
    if (sendForm && e.detail.elt === sendForm) awaitingTest = true;
  });
  document.addEventListener('htmx:afterRequest', function (e) {
    if (!sendForm || e.detail.elt !== sendForm) return;
    var hint = sendForm.querySelector('.hint');
    if (e.detail.successful) {
      if (hint) hint.textContent = 'Sent. It appears above the moment it arrives.';
    } else if (hint) {
      awaitingTest = false;
      hint.textContent = e.detail.xhr.status === 429 ? 'Too many alerts this minute: try again in a moment.' : 'Could not send the test alert (' + e.detail.xhr.status + ').';
    }
  });

  document.addEventListener('ab:alert-added', function (e) {
    var entry = e.detail;
    if (awaitingTest) {
      awaitingTest = false;
      entry.scrollIntoView({ block: 'center' });
      if (window.AlertbridgeFeed) window.AlertbridgeFeed.focusEntry(entry);
      return;
    }
    if (entry.getBoundingClientRect().top < 0) {
      unseen.push(entry);
      showPill();
    }
  });

  // ---- The unread count on the favicon, following the title's "(n)" (feed.js keeps that one right).
  var icon = document.querySelector('link[rel~="icon"]');
  var original = icon ? icon.getAttribute('href') : null;
  var base = null;
  if (original) {
    base = new Image();
    base.onload = function () { drawIcon(); };
    base.src = original;
  }
  function unreadCount() {
    var m = /^\((\d+)\) /.exec(document.title);
    return m ? Number(m[1]) : 0;
  }
  function drawIcon() {
    var n = unreadCount();
    if (!icon) {
      icon = document.createElement('link');
      icon.rel = 'icon';
      document.head.appendChild(icon);
    }
    if (n === 0 && original) { icon.setAttribute('href', original); return; }
    var c = document.createElement('canvas');
    c.width = c.height = 64;
    var g = c.getContext('2d');
    if (!g) return;
    if (base && base.complete && base.naturalWidth) g.drawImage(base, 0, 0, 64, 64);
    else bell(g);
    if (n > 0) {
      var text = n > 99 ? '99+' : String(n);
      var w = text.length > 1 ? 44 : 34;
      g.fillStyle = '#d92d20';
      g.beginPath();
      g.roundRect(64 - w, 0, w, 34, 17);
      g.fill();
      g.fillStyle = '#ffffff';
      g.font = 'bold 26px system-ui, sans-serif';
      g.textAlign = 'center';
      g.textBaseline = 'middle';
      g.fillText(text, 64 - w / 2, 18);
    }
    icon.setAttribute('href', c.toDataURL('image/png'));
  }
  // The product's mark when the page names no icon: a disc in the accent colour.
  function bell(g) {
    g.fillStyle = '#0b5cd5';
    g.beginPath();
    g.arc(32, 32, 30, 0, Math.PI * 2);
    g.fill();
  }
  var title = document.querySelector('title');
  if (title) new MutationObserver(drawIcon).observe(title, { childList: true, characterData: true, subtree: true });
  drawIcon();
})();
