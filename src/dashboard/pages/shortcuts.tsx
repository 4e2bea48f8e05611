/** The keyboard shortcuts (`?` opens it; feed.js handles the keys), on the feed and search pages. */
export function ShortcutsDialog() {
  return (
    <dialog id="shortcuts" class="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl>
        <dt>
          <kbd>j</kbd> / <kbd>k</kbd>
        </dt>
        <dd>Next / previous card</dd>
        <dt>
          <kbd>o</kbd>
        </dt>
        <dd>Open the card's link (and mark it read)</dd>
        <dt>
          <kbd>e</kbd>
        </dt>
        <dd>Mark read / unread</dd>
        <dt>
          <kbd>a</kbd> / <kbd>r</kbd> / <kbd>u</kbd>
        </dt>
        <dd>Acknowledge / resolve / reopen (or unsnooze)</dd>
        <dt>
          <kbd>s</kbd>
        </dt>
        <dd>Snooze (1 hour, 4 hours, tomorrow 9:00)</dd>
        <dt>
          <kbd>/</kbd>
        </dt>
        <dd>Search</dd>
        <dt>
          <kbd>?</kbd>
        </dt>
        <dd>This list</dd>
      </dl>
      <button type="button" class="button small" data-close>
        Close
      </button>
    </dialog>
  );
}
