import { ManualClock } from '../../src/lib/clock.js';
import type { Mailer } from '../../src/notify/mailer.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** What the invitation tests share: a dashboard on a manual clock, the seeded workspaces, signed-in clients. */
export async function invitationSetup(opts: { env?: Record<string, string>; mailer?: Mailer | null } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  const h = await startDashboard({ serve: false, env: opts.env, mailer: opts.mailer, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  return { h, clock, seed, owner };
}

/** A client signed in as `userId` (by a one-time link, as `admin login-link` gives one). */
export async function signedIn(h: DashHarness, userId: string): Promise<DashClient> {
  const c = new DashClient(h);
  await c.signInWithLink(userId);
  return c;
}

/** The one link a page shows in a copy box (an invitation link, or on old code a sign-in link), as a path. */
export function shownLink(html: string): string {
  const m = /value="(http:\/\/[^"]+\?t=[A-Za-z0-9_-]{43})"/.exec(html);
  if (!m) throw new Error(`no link on the page: ${html.slice(0, 2000)}`);
  const url = new URL(m[1]!.replace(/&amp;/g, '&'));
  return url.pathname + url.search;
}

export const secretOf = (path: string) => new URL(path, 'http://x').searchParams.get('t')!;

/**
 * Opens a link and presses every POST form its page offers, filling what a person would (a name, no
 * password), following redirects: what anyone holding the link can do with it.
 */
export async function pressEverything(client: DashClient, path: string): Promise<void> {
  let page = await client.get(path);
  for (let hops = 0; hops < 3 && page.res.status === 303; hops++) page = await client.get(page.res.headers.get('location')!);
  const forms = [...page.html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
  for (const [, action, body] of forms) {
    if (action === '/sign-out' || action === '/sign-in' || action === '/sign-in/link') continue;
    const fields = Object.fromEntries([...body!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map(([, k, v]) => [k!, v!.replace(/&amp;/g, '&')]));
    const res = await client.post(action!, { name: 'Mallory', ...fields }, { csrf: null });
    const to = res.res.headers.get('location');
    if (to) await client.get(to);
  }
}

/** The invitations rows of the harness's database, as stored. */
export function invitationRows(h: DashHarness) {
  return h.query<{ email: string; role: string; state: string; token_hash: string; sent_by_mail: number | boolean }>(
    'SELECT email, role, state, token_hash, sent_by_mail FROM invitations ORDER BY created_at, id',
  );
}
