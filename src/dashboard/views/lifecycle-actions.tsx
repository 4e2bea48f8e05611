import type { AlertView } from '../../domain/alert-view.js';
import { Csrf } from './layout.js';

/**
 * An alert's lifecycle on a feed card (docs/handling-alerts.md): what state it is in and who put it
 * there, and the buttons that move it. Kept apart from the card so the card header's action slot can
 * place them; each button is a plain form post (works without JS) that htmx posts in place, and
 * feed-lifecycle.js binds the keys (a, r, s, u) to them.
 */

/** "Acknowledged by Max Member 5 minutes ago", "Resolved by Grafana", "Snoozed, ends in 1 hour": nothing for a plain open alert. */
export function LifecycleStatus(props: { alert: AlertView; now: number }) {
  const a = props.alert;
  const snoozed = a.snoozedUntil !== null && Date.parse(a.snoozedUntil) > props.now;
  const repeated = a.occurrences > 1;
  if (a.status === 'open' && !snoozed && !repeated) return null;
  return (
    <p class="feed-status-line" data-status={a.status}>
      {a.status === 'acknowledged' ? (
        <span class="status-pill acknowledged">
          Acknowledged by {a.acknowledgedBy?.name ?? 'someone'} <Ago iso={a.acknowledgedAt} />
        </span>
      ) : null}
      {a.status === 'resolved' ? (
        <span class="status-pill resolved">
          Resolved by {a.resolvedBy?.name ?? 'someone'} <Ago iso={a.resolvedAt} />
        </span>
      ) : null}
      {snoozed ? (
        <span class="status-pill snoozed">
          Snoozed, ends <time datetime={a.snoozedUntil!} title={a.snoozedUntil!}>{a.snoozedUntil}</time>
        </span>
      ) : null}
      {repeated ? <span class="status-pill occurrences">{a.occurrences}× reported</span> : null}
    </p>
  );
}

function Ago(props: { iso: string | null }) {
  return props.iso ? <time datetime={props.iso} title={props.iso}>{props.iso}</time> : null;
}

/** The buttons for the alert's state: acknowledge, resolve, snooze (1 h, 4 h, tomorrow 9:00), reopen, wake. */
export function LifecycleActions(props: { alert: AlertView; csrfToken: string; now: number }) {
  const a = props.alert;
  const snoozed = a.snoozedUntil !== null && Date.parse(a.snoozedUntil) > props.now;
  const action = `/feed/status/${a.id}`;
  return (
    <form method="post" action={action} class="feed-lifecycle" hx-post={action} hx-target="closest .feed-entry" hx-swap="outerHTML">
      <Csrf token={props.csrfToken} />
      {/* Filled by feed-lifecycle.js with the browser's zone, for "tomorrow 9:00"; UTC without JS. */}
      <input type="hidden" name="tz" value="UTC" data-time-zone />
      {a.status === 'open' ? (
        <button type="submit" name="action" value="acknowledge" class="button ghost small" data-lifecycle="acknowledge" aria-keyshortcuts="a">
          Acknowledge
        </button>
      ) : null}
      {a.status !== 'resolved' ? (
        <button type="submit" name="action" value="resolve" class="button ghost small" data-lifecycle="resolve" aria-keyshortcuts="r">
          Resolve
        </button>
      ) : null}
      {a.status !== 'resolved' && !snoozed ? (
        <details class="snooze-menu" data-lifecycle="snooze">
          <summary class="button ghost small" aria-keyshortcuts="s">Snooze</summary>
          <div class="snooze-options" role="group" aria-label="Snooze for">
            <button type="submit" name="action" value="snooze:1h" class="button ghost small">1 hour</button>
            <button type="submit" name="action" value="snooze:4h" class="button ghost small">4 hours</button>
            <button type="submit" name="action" value="snooze:tomorrow" class="button ghost small">Tomorrow 9:00</button>
          </div>
        </details>
      ) : null}
      {snoozed ? (
        <button type="submit" name="action" value="unsnooze" class="button ghost small" data-lifecycle="unsnooze">
          Unsnooze
        </button>
      ) : null}
      {a.status !== 'open' ? (
        <button type="submit" name="action" value="reopen" class="button ghost small" data-lifecycle="reopen" aria-keyshortcuts="u">
          Reopen
        </button>
      ) : null}
    </form>
  );
}
