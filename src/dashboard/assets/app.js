// Alertbridge dashboard behaviour: CSRF header for htmx, copy buttons, theme toggle, auto-submit selects.
// Served as a file: the CSP allows no inline script.
(function () {
  'use strict';
  var csrf = document.querySelector('meta[name="csrf-token"]');

  // htmx requests carry the session's CSRF token as a header (forms carry it as a hidden field).
  document.addEventListener('htmx:configRequest', function (e) {
    if (csrf) e.detail.headers['X-CSRF-Token'] = csrf.getAttribute('content');
  });

  // A polite live region announces copies to screen readers.
  var live = document.createElement('div');
  live.className = 'visually-hidden';
  live.setAttribute('aria-live', 'polite');
  document.body.appendChild(live);

  document.addEventListener('click', function (e) {
    var btn = e.target.closest && e.target.closest('[data-copy]');
    if (!btn) return;
    var field = document.getElementById(btn.getAttribute('data-copy'));
    if (!field) return;
    var text = field.value;
    var done = function () {
      var old = btn.textContent;
      btn.textContent = 'Copied';
      live.textContent = 'Copied to the clipboard';
      setTimeout(function () { btn.textContent = old; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { field.select(); });
    } else {
      // Plain-http deployments: the Clipboard API needs a secure context, so select the text for Ctrl+C.
      field.focus();
      field.select();
      live.textContent = 'Selected: press Control+C to copy';
    }
  });

  var root = document.documentElement;
  var toggle = document.getElementById('theme-toggle');
  var isDark = function () {
    var t = root.getAttribute('data-theme');
    if (t) return t === 'dark';
    return window.matchMedia('(prefers-color-scheme: dark)').matches;
  };
  var sync = function () {
    if (!toggle) return;
    var dark = isDark();
    toggle.setAttribute('aria-pressed', dark ? 'true' : 'false');
    // The browser's bar (and an installed app's title bar) follows the chosen theme, not only the OS one.
    document.querySelectorAll('meta[data-theme-color]').forEach(function (m) {
      if (root.getAttribute('data-theme')) m.setAttribute('media', m.getAttribute('data-theme-color') === (dark ? 'dark' : 'light') ? 'all' : 'not all');
    });
  };
  if (toggle) {
    toggle.addEventListener('click', function () {
      var next = isDark() ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem('ab-theme', next); } catch (_err) { /* not stored: this page only */ }
      sync();
    });
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', sync);
    sync();
  }

  // A select marked data-autosubmit submits its form on change (its button is only for no-JS use).
  document.querySelectorAll('select[data-autosubmit]').forEach(function (s) {
    s.addEventListener('change', function () { s.form.requestSubmit(); });
  });
  // Read-only boxes (curl lines) show their whole text. CSSOM writes are allowed by the CSP; style attributes are not.
  var fit = function () {
    document.querySelectorAll('textarea[readonly]').forEach(function (t) {
      t.style.height = 'auto';
      t.style.height = t.scrollHeight + 2 + 'px';
    });
  };
  fit();
  window.addEventListener('resize', fit);
  document.addEventListener('htmx:afterSwap', fit);

  document.querySelectorAll('.js-hide').forEach(function (el) { el.hidden = true; });

  // The service worker keeps the last feed for a reload without a network (push-sw.js); signed-in pages only.
  if (csrf && 'serviceWorker' in navigator && window.isSecureContext) {
    navigator.serviceWorker.register('/push-sw.js', { scope: '/' }).catch(function () { /* no offline copy: the page works as before */ });
  }
  // "You are offline": a page the worker served from its copy, or a lost connection while reading.
  var offlineNotice = document.querySelector('[data-offline-notice]');
  var servedOffline = root.hasAttribute('data-served-offline');
  var showOffline = function () {
    if (offlineNotice) offlineNotice.hidden = !(servedOffline || !navigator.onLine);
  };
  showOffline();
  window.addEventListener('offline', showOffline);
  window.addEventListener('online', showOffline);
  // The stored copy is stale and its live stream is gone: once the server answers again, load the real page.
  // (Polled: the "online" event only reports a network interface, not that the server is reachable.)
  if (servedOffline) {
    setInterval(function () {
      fetch(window.location.href, { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
        if (r.ok) window.location.reload();
      }, function () { /* still offline */ });
    }, 5000);
  }

  // "/" focuses the frame's search box (keys typed into a field are left alone).
  var searchBox = document.querySelector('[data-search-box]');
  document.addEventListener('keydown', function (e) {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || !searchBox) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (document.querySelector('dialog[open]')) return;
    e.preventDefault();
    searchBox.focus();
    searchBox.select();
  });
  // The search page answers a refused query with 400 and the reason: htmx shows it instead of dropping it.
  document.addEventListener('htmx:beforeSwap', function (e) {
    if (e.detail.xhr.status === 400 && e.detail.target && e.detail.target.id === 'search-results') {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });
})();
