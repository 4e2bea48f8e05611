import type { Child } from 'hono/jsx';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Assets } from '../http/assets.js';
import type { DashEnv } from '../http/env.js';
import { Notice } from './components.js';
import { Layout, type NavKey, type PageChrome } from './layout.js';

let table: Assets | undefined;
/** The asset table depends only on files shipped with the code: one per process, read on first use. */
export function assets(): Assets {
  return (table ??= new Assets());
}
export const asset = (name: string) => assets().url(name);

/** A page for a signed-in viewer (chrome from the session middleware's variables). */
export function page(c: Context<DashEnv>, title: string, nav: NavKey, body: Child, status: ContentfulStatusCode = 200, extra: Pick<PageChrome, 'search'> = {}) {
  const chrome: PageChrome = {
    title,
    asset,
    nav,
    csrfToken: c.get('csrfToken'),
    viewer: c.get('viewer'),
    workspace: c.get('workspace'),
    workspaces: c.get('workspaces'),
    pendingInvitations: c.get('pendingInvitations'),
    ...extra,
  };
  const flash = c.get('flash');
  // What a form just did, named (the flash of its Post/Redirect/Get), above the page it lands on.
  const notice = flash?.notice ? <Notice kind={flash.tone ?? 'ok'}>{flash.notice}</Notice> : null;
  return c.html(
    <Layout chrome={chrome}>
      {notice}
      {body}
    </Layout>,
    status,
  );
}

/** A page outside a session (sign-in, link confirmation, errors for anonymous visitors). */
export function publicPage(c: Context, title: string, body: Child, status: ContentfulStatusCode = 200) {
  const vars = c as unknown as Context<DashEnv>;
  // An error page inside a signed-in request keeps its chrome.
  if (vars.get('viewer')) return page(vars, title, 'none', body, status);
  return c.html(<Layout chrome={{ title, asset }}>{body}</Layout>, status);
}
