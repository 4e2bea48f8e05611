import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { Viewer, WorkspaceView } from '../http/env.js';
import { SearchBox, type SearchBoxState } from './search-box.js';

/** The top bar's colours (app.css --surface), for the browser's own bar and an installed app's window. */
export const THEME_COLOR = '#ffffff';
export const DARK_THEME_COLOR = '#171b21';

export type NavKey = 'feed' | 'channels' | 'silences' | 'heartbeats' | 'tokens' | 'members' | 'usage' | 'audit' | 'profile' | 'none';

export interface PageChrome {
  title: string;
  /** Asset URL lookup (content-hashed names). */
  asset: (name: string) => string;
  csrfToken?: string;
  viewer?: Viewer;
  workspace?: WorkspaceView;
  workspaces?: WorkspaceView[];
  nav?: NavKey;
  /** Invitations the viewer may accept: a notice on every page but the profile, where they are listed. */
  pendingInvitations?: number;
  /** The frame's search box on the search page (its query and filters). */
  search?: SearchBoxState;
}

const NAV: { key: NavKey; href: string; label: string; managersOnly?: boolean }[] = [
  { key: 'feed', href: '/feed', label: 'Feed' },
  { key: 'channels', href: '/channels', label: 'Channels' },
  { key: 'silences', href: '/silences', label: 'Silences' },
  { key: 'heartbeats', href: '/heartbeats', label: 'Heartbeats' },
  { key: 'tokens', href: '/tokens', label: 'API tokens' },
  { key: 'members', href: '/members', label: 'Members' },
  { key: 'usage', href: '/usage', label: 'Usage' },
  { key: 'audit', href: '/audit', label: 'Audit log', managersOnly: true },
  { key: 'profile', href: '/profile', label: 'Profile' },
];

/** Hidden CSRF field for every form of a signed-in page. */
export function Csrf(props: { token: string | undefined }) {
  return props.token ? <input type="hidden" name="_csrf" value={props.token} /> : null;
}

function WorkspaceSwitcher(props: { chrome: PageChrome }) {
  const { workspace, workspaces, csrfToken } = props.chrome;
  if (!workspace || !workspaces) return null;
  if (workspaces.length < 2) return <span class="ws-name">{workspace.name}</span>;
  return (
    <form method="post" action="/workspace" class="ws-switch">
      <Csrf token={csrfToken} />
      <label for="ws-select" class="visually-hidden">
        Workspace
      </label>
      <select id="ws-select" name="workspace" data-autosubmit>
        {workspaces.map((w) => (
          <option value={w.id} selected={w.id === workspace.id}>
            {w.name}
          </option>
        ))}
      </select>
      <button type="submit" class="button small js-hide">
        Switch workspace
      </button>
    </form>
  );
}

/** Line icons drawn with the text colour (inline SVG: no request, allowed by the CSP, scales with the font). */
export function Icon(props: { d: string }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      <path d={props.d} />
    </svg>
  );
}
const SEARCH_ICON = 'M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14zM21 21l-4.35-4.35';
const MENU_ICON = 'M4 6h16M4 12h16M4 18h16';

/**
 * The frame of every page: header with the workspace switcher, the search box,
 * the theme toggle and sign-out, and the section navigation; the main content.
 * On a phone the header is one compact bar (name, search icon, menu button) and
 * the switcher, sections and actions live in the menu: a popover, so it opens,
 * closes on Escape or a tap outside, and reports its state without any script.
 * On a desktop the same elements are laid out in the bar (the menu's box is
 * `display: contents`). The CSRF token also sits in a meta tag, where app.js
 * reads it for htmx requests.
 */
export function Layout(props: { chrome: PageChrome; children?: Child }) {
  const c = props.chrome;
  const manager = c.workspace?.role === 'owner' || c.workspace?.role === 'admin';
  const signedIn = Boolean(c.viewer && c.workspace);
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
          {c.csrfToken ? <meta name="csrf-token" content={c.csrfToken} /> : null}
          {/* htmx would otherwise inject an inline <style>, which the CSP refuses; app.css styles its indicators. */}
          <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
          <title>{`${c.title} · Alertbridge`}</title>
          <link rel="manifest" href="/manifest.webmanifest" />
          <meta name="theme-color" content={THEME_COLOR} media="(prefers-color-scheme: light)" data-theme-color="light" />
          <meta name="theme-color" content={DARK_THEME_COLOR} media="(prefers-color-scheme: dark)" data-theme-color="dark" />
          <link rel="icon" href="/icons/icon-192.png" type="image/png" />
          <link rel="apple-touch-icon" href="/icons/apple-touch-icon.png" />
          <link rel="stylesheet" href={c.asset('site.css')} />
          {/* Not deferred: it sets the stored theme before the first paint. */}
          <script src={c.asset('theme.js')}></script>
          <script src={c.asset('htmx.js')} defer></script>
          <script src={c.asset('site.js')} defer></script>
        </head>
        <body>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <header class={c.search ? 'top searching' : 'top'}>
            <a class="brand" href="/">
              <span aria-hidden="true">🔔</span> Alertbridge
            </a>
            {signedIn ? <SearchBox state={c.search} /> : null}
            {signedIn ? (
              <a class="top-icon phone-only search-link" href="/search" aria-label="Search" title="Search">
                <Icon d={SEARCH_ICON} />
              </a>
            ) : null}
            {c.viewer ? (
              <button type="button" class="top-icon phone-only" popovertarget="site-menu" aria-label="Menu" title="Menu">
                <Icon d={MENU_ICON} />
              </button>
            ) : null}
            <div class="site-menu" id="site-menu" popover={c.viewer ? 'auto' : undefined}>
              <WorkspaceSwitcher chrome={c} />
              {signedIn ? (
                <nav class="sections" aria-label="Sections">
                  <ul>
                    {NAV.filter((n) => !n.managersOnly || manager).map((n) => (
                      <li>
                        <a href={n.href} aria-current={c.nav === n.key ? 'page' : undefined}>
                          {n.label}
                        </a>
                      </li>
                    ))}
                  </ul>
                </nav>
              ) : null}
              <div class="top-actions">
                <button type="button" class="button ghost small" id="theme-toggle" aria-pressed="false">
                  Dark theme
                </button>
                {c.viewer ? (
                  <form method="post" action="/sign-out">
                    <Csrf token={c.csrfToken} />
                    <button type="submit" class="button ghost small">
                      Sign out
                    </button>
                  </form>
                ) : null}
              </div>
            </div>
          </header>
          <main id="main" tabindex={-1}>
            <p class="notice warn offline-notice" role="status" hidden data-offline-notice>
              You are offline. This page shows what was last loaded; it updates when the connection is back.
            </p>
            {c.viewer && c.pendingInvitations && c.nav !== 'profile' ? (
              <div class="notice warn" role="status">
                You have {c.pendingInvitations === 1 ? 'a pending invitation' : `${c.pendingInvitations} pending invitations`} to join a workspace.{' '}
                <a href="/profile#invitations">Review pending invitations</a>
              </div>
            ) : null}
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}
