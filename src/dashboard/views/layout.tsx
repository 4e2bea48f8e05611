import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { Viewer, WorkspaceView } from '../http/env.js';
import { SearchBox, type SearchBoxState } from './search-box.js';

export type NavKey = 'feed' | 'channels' | 'silences' | 'tokens' | 'members' | 'usage' | 'audit' | 'profile' | 'none';

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

/**
 * The frame of every page: header with the workspace switcher, the theme
 * toggle and sign-out; the section navigation; the main content. The CSRF
 * token also sits in a meta tag, where app.js reads it for htmx requests.
 */
export function Layout(props: { chrome: PageChrome; children?: Child }) {
  const c = props.chrome;
  const manager = c.workspace?.role === 'owner' || c.workspace?.role === 'admin';
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          {c.csrfToken ? <meta name="csrf-token" content={c.csrfToken} /> : null}
          {/* htmx would otherwise inject an inline <style>, which the CSP refuses; app.css styles its indicators. */}
          <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
          <title>{`${c.title} · Alertbridge`}</title>
          <link rel="stylesheet" href={c.asset('app.css')} />
          {/* Not deferred: it sets the stored theme before the first paint. */}
          <script src={c.asset('theme.js')}></script>
          <script src={c.asset('htmx.js')} defer></script>
          <script src={c.asset('app.js')} defer></script>
        </head>
        <body>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href="/">
              <span aria-hidden="true">🔔</span> Alertbridge
            </a>
            <WorkspaceSwitcher chrome={c} />
            {c.viewer && c.workspace ? <SearchBox state={c.search} /> : null}
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
          </header>
          {c.viewer && c.workspace ? (
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
          <main id="main" tabindex={-1}>
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
