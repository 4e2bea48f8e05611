import type { Child } from 'hono/jsx';
import { Csrf } from './layout.js';

/**
 * The feed entry's header actions: small icon buttons with an accessible name and a tooltip
 * (the keyboard shortcut in brackets, as Linear shows it). A feature adds its action by
 * appending one more `EntryAction` to the list `feedEntryActions` builds (pages/feed-entry.tsx);
 * the slot lays them out, and a `secondary` one (Delete) sits last and muted.
 */
export type EntryAction =
  | {
      /** A form posted in place by htmx (the entry is swapped for the server's answer); a plain POST without JS. */
      kind: 'post';
      action: string;
      fields?: Record<string, string>;
      label: string;
      icon: IconName;
      /** The key that does the same, shown in the tooltip. */
      shortcut?: string;
      secondary?: boolean;
      /** Marks the control for feed.js (for example `toggle-read`, pressed by the `e` key). */
      name?: string;
    }
  | { kind: 'link'; href: string; label: string; icon: IconName; shortcut?: string; secondary?: boolean; name?: string }
  | {
      /**
       * An icon button that opens a small menu of choices (snooze: 1 hour, 4 hours, tomorrow), each a
       * submit button of one form posted in place like `post`. A `<details>`, so it opens without JS.
       */
      kind: 'menu';
      action: string;
      fields?: Record<string, string>;
      /** A hidden field feed-lifecycle.js fills with the browser's time zone (UTC without JS). */
      timeZoneField?: string;
      label: string;
      /** Names the group of choices ("Snooze for"). */
      menuLabel: string;
      choices: { label: string; name: string; value: string }[];
      icon: IconName;
      shortcut?: string;
      secondary?: boolean;
      name?: string;
    };

/** 16px line icons (stroke follows the text colour): inline SVG, which the CSP allows, unlike an icon font from elsewhere. */
const ICONS = {
  check: <path d="M3.5 8.5l3 3 6-7" />,
  dot: <circle cx="8" cy="8" r="3.5" />,
  trash: <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5M6.8 7v4M9.2 7v4" />,
  bell: <path d="M8 2.5a3.5 3.5 0 0 0-3.5 3.5v2.5L3 11h10l-1.5-2.5V6A3.5 3.5 0 0 0 8 2.5zM6.5 12.5a1.5 1.5 0 0 0 3 0" />,
  flag: <path d="M4 13.5V3M4 3.5h7.5l-1.5 2.5 1.5 2.5H4" />,
  /** Acknowledge: a person with a check, "I'm on it". */
  taken: <path d="M6 7.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zM1.5 13.5c0-2.5 2-4 4.5-4 1.1 0 2.1.3 2.9.8M10 11l1.6 1.6 3-3.2" />,
  resolved: <path d="M8 14A6 6 0 1 0 8 2a6 6 0 0 0 0 12zM5.5 8.2l1.8 1.8 3.2-3.6" />,
  clock: <path d="M8 14A6 6 0 1 0 8 2a6 6 0 0 0 0 12zM8 5v3.2l2.1 1.3" />,
  reopen: <path d="M3 8a5 5 0 1 0 1.5-3.6M3.2 2.2v2.6h2.6" />,
  /** Deliveries: a paper plane, "where it was sent". */
  send: <path d="M14 2L2 7l4.5 1.8L14 2zM14 2l-3 12-4.5-5.2M6.5 8.8V13l2-2.4" />,
} satisfies Record<string, Child>;
export type IconName = keyof typeof ICONS;

export function Icon(props: { name: IconName }) {
  return (
    <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      {ICONS[props.name]}
    </svg>
  );
}

function tooltip(a: EntryAction): string {
  return a.shortcut ? `${a.label} (${a.shortcut})` : a.label;
}

/**
 * The slot itself: floated to the card's top right (feed.css), before the card in the markup so
 * the card's header makes room for it whatever the number of actions. `ariaLabel` names each
 * control with its object when one page holds many ("Delete “Disk full”").
 */
export function EntryActions(props: { actions: (EntryAction & { ariaLabel?: string })[]; csrfToken: string; entryLabel: string }) {
  const sorted = [...props.actions.filter((a) => !a.secondary), ...props.actions.filter((a) => a.secondary)];
  return (
    <div class="entry-actions" role="group" aria-label={`Actions for ${props.entryLabel}`}>
      {sorted.map((a) => {
        const cls = `icon-button${a.secondary ? ' secondary' : ''}`;
        const name = a.ariaLabel ?? a.label;
        if (a.kind === 'menu') return <EntryMenu action={a} name={name} cls={cls} csrfToken={props.csrfToken} />;
        if (a.kind === 'link') {
          return (
            <a class={cls} href={a.href} aria-label={name} title={tooltip(a)} data-action={a.name}>
              <Icon name={a.icon} />
            </a>
          );
        }
        return (
          <form method="post" action={a.action} hx-post={a.action} hx-target="closest .feed-entry" hx-swap="outerHTML">
            <Csrf token={props.csrfToken} />
            {Object.entries(a.fields ?? {}).map(([k, v]) => (
              <input type="hidden" name={k} value={v} />
            ))}
            <button type="submit" class={cls} aria-label={name} title={tooltip(a)} aria-keyshortcuts={a.shortcut} data-action={a.name}>
              <Icon name={a.icon} />
            </button>
          </form>
        );
      })}
    </div>
  );
}

/** A menu action: the icon button is the `<details>`'s summary; the choices drop down under it, right-aligned with the slot. */
function EntryMenu(props: { action: Extract<EntryAction, { kind: 'menu' }>; name: string; cls: string; csrfToken: string }) {
  const a = props.action;
  return (
    <details class="entry-menu" data-action={a.name}>
      <summary class={props.cls} aria-label={props.name} title={tooltip(a)} aria-keyshortcuts={a.shortcut}>
        <Icon name={a.icon} />
      </summary>
      <form method="post" action={a.action} class="entry-menu-choices" role="group" aria-label={a.menuLabel} hx-post={a.action} hx-target="closest .feed-entry" hx-swap="outerHTML">
        <Csrf token={props.csrfToken} />
        {Object.entries(a.fields ?? {}).map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
        {a.timeZoneField ? <input type="hidden" name={a.timeZoneField} value="UTC" data-time-zone /> : null}
        {a.choices.map((c) => (
          <button type="submit" name={c.name} value={c.value} class="entry-menu-choice">
            {c.label}
          </button>
        ))}
      </form>
    </details>
  );
}
