// Applies the stored theme before the first paint (no flash). Without a stored choice the OS preference rules.
(function () {
  try {
    var t = localStorage.getItem('ab-theme');
    if (t === 'dark' || t === 'light') document.documentElement.setAttribute('data-theme', t);
  } catch (_e) {
    /* storage disabled: follow the OS */
  }
})();
