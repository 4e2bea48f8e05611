// Destructive forms (data-confirm) ask first, in a modal dialog that names their object:
// "Revoke token “CI deploy script”?" with Cancel and the action. Served as a file (the CSP allows no
// inline script); without script the form posts as it is.
(function () {
  'use strict';
  var dialog;
  var pending;

  function build() {
    dialog = document.createElement('dialog');
    dialog.className = 'confirm-dialog';
    dialog.setAttribute('aria-labelledby', 'confirm-question');
    dialog.setAttribute('aria-describedby', 'confirm-detail');
    dialog.innerHTML =
      '<form method="dialog">' +
      '<h2 id="confirm-question"></h2><p id="confirm-detail"></p>' +
      '<div class="confirm-buttons"><button type="submit" value="cancel" class="button">Cancel</button>' +
      '<button type="submit" value="confirm" class="button danger" id="confirm-go"></button></div></form>';
    document.body.appendChild(dialog);
    dialog.addEventListener('close', function () {
      var form = pending;
      pending = undefined;
      if (form && dialog.returnValue === 'confirm') {
        form.setAttribute('data-confirmed', '1');
        form.requestSubmit();
      }
    });
  }

  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!form.hasAttribute || !form.hasAttribute('data-confirm')) return;
    if (form.getAttribute('data-confirmed') === '1') {
      form.removeAttribute('data-confirmed');
      return;
    }
    e.preventDefault();
    if (!dialog) build();
    pending = form;
    dialog.querySelector('#confirm-question').textContent = form.getAttribute('data-confirm');
    var detail = form.getAttribute('data-confirm-detail') || '';
    var p = dialog.querySelector('#confirm-detail');
    p.textContent = detail;
    p.hidden = !detail;
    dialog.querySelector('#confirm-go').textContent = form.getAttribute('data-confirm-action') || 'Continue';
    dialog.returnValue = '';
    dialog.showModal();
    // The safe choice has the focus, as in GitHub's and Linear's dialogs.
    dialog.querySelector('button[value="cancel"]').focus();
  }, true);
})();
