import type { AlertView } from '../../domain/alert-view.js';
import type { EntryAction, IconName } from './entry-actions.js';

/**
 * An alert's lifecycle on a feed card (docs/handling-alerts.md): what state it is in and who put it
 * there (a line on the card), and the actions that move it (icon buttons in the card header's slot).
 * Each action is a plain form post (works without JS) that htmx posts in place, and
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

/**
 * The header actions for the alert's state (keys a, r, s, u in feed-lifecycle.js): acknowledge, resolve,
 * the snooze menu (1 h, 4 h, tomorrow 9:00 in the browser's zone), then wake or reopen. Each posts
 * `action` to /feed/status/:id; named with the alert ("Acknowledge “Disk full”") by `entryLabel`.
 */
export function lifecycleEntryActions(alert: AlertView, o: { now: number; entryLabel: string }): (EntryAction & { ariaLabel?: string })[] {
  const a = alert;
  const snoozed = a.snoozedUntil !== null && Date.parse(a.snoozedUntil) > o.now;
  const action = `/feed/status/${a.id}`;
  const post = (value: string, label: string, icon: IconName, shortcut: string) =>
    ({ kind: 'post', action, fields: { action: value }, label, ariaLabel: `${label} ${o.entryLabel}`, icon, shortcut, name: value }) as const;
  const actions: (EntryAction & { ariaLabel?: string })[] = [];
  if (a.status === 'open') actions.push(post('acknowledge', 'Acknowledge', 'taken', 'a'));
  if (a.status !== 'resolved') actions.push(post('resolve', 'Resolve', 'resolved', 'r'));
  if (a.status !== 'resolved' && !snoozed) {
    actions.push({
      kind: 'menu',
      action,
      timeZoneField: 'tz',
      label: 'Snooze',
      ariaLabel: `Snooze ${o.entryLabel}`,
      menuLabel: 'Snooze for',
      choices: [
        { label: '1 hour', name: 'action', value: 'snooze:1h' },
        { label: '4 hours', name: 'action', value: 'snooze:4h' },
        { label: 'Tomorrow 9:00', name: 'action', value: 'snooze:tomorrow' },
      ],
      icon: 'clock',
      shortcut: 's',
      name: 'snooze',
    });
  }
  // u wakes a snoozed alert, or reopens an acknowledged or resolved one (both rarely apply at once: reopening also wakes).
  if (snoozed) actions.push(post('unsnooze', 'Unsnooze', 'bell', 'u'));
  if (a.status !== 'open') actions.push(post('reopen', 'Reopen', 'reopen', 'u'));
  return actions;
}
