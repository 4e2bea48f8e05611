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
  | { kind: 'link'; href: string; label: string; icon: IconName; shortcut?: string; secondary?: boolean; name?: string };

/** 16px line icons (stroke follows the text colour): inline SVG, which the CSP allows, unlike an icon font from elsewhere. */
const ICONS = {
  check: <path d="M3.5 8.5l3 3 6-7" />,
  dot: <circle cx="8" cy="8" r="3.5" />,
  trash: <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5M6.8 7v4M9.2 7v4" />,
  bell: <path d="M8 2.5a3.5 3.5 0 0 0-3.5 3.5v2.5L3 11h10l-1.5-2.5V6A3.5 3.5 0 0 0 8 2.5zM6.5 12.5a1.5 1.5 0 0 0 3 0" />,
  flag: <path d="M4 13.5V3M4 3.5h7.5l-1.5 2.5 1.5 2.5H4" />,
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
            <button type="submit" class={cls} aria-label={name} title={tooltip(a)} data-action={a.name}>
              <Icon name={a.icon} />
            </button>
          </form>
        );
      })}
    </div>
  );
}
