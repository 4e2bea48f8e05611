import { type Context, Hono } from 'hono';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { formOf, requireRole } from '../http/session.js';
import type { SettingsExtra } from '../pages/channels.js';
import type { ChannelRecord } from '../ports.js';

const MANAGERS = ['owner', 'admin'] as const;
/** The checkbox of each workspace member to keep when a channel turns private. */
export const KEEP_FIELD = 'keep_';

/**
 * A channel's privacy, from its settings: public → private keeps the members ticked on the form (the
 * person making the change always, or they would lock themselves out); private → public opens it to
 * the workspace. Owners and admins only, as every channel setting.
 */
export function channelPrivacyRoutes(
  deps: DashboardDeps,
  own: { visibleChannel(c: Context<DashEnv>): Promise<ChannelRecord | undefined>; settings(c: Context<DashEnv>, ch: ChannelRecord, extra?: SettingsExtra): Promise<Response> },
): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.post('/channels/:id/privacy', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const ch = await own.visibleChannel(c);
    if (!ch) return c.notFound();
    const form = await formOf(c);
    const wanted = form.privacy;
    if (wanted !== 'private' && wanted !== 'public') return own.settings(c, ch, { errors: { privacy: 'Choose public or private' }, values: form });
    if ((wanted === 'private') === ch.isPrivate) {
      return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `“${ch.name}” is ${wanted} already.` });
    }
    const me = c.get('viewer').id;
    if (wanted === 'public') {
      await deps.accounts.setChannelPrivacy(ch.id, { isPrivate: false });
      await audit(c, deps, 'channel.made-public', `${ch.name} (${ch.id})`);
      return redirectWithFlash(c, `/channels/${ch.id}`, { notice: `“${ch.name}” is public: every member of the workspace sees it now.` });
    }
    const members = await deps.accounts.listMembers(ws.id);
    const keep = members.filter((m) => m.id === me || form[`${KEEP_FIELD}${m.id}`] === 'on');
    await deps.accounts.setChannelPrivacy(ch.id, { isPrivate: true, keep: keep.map((m) => m.id) });
    await audit(c, deps, 'channel.made-private', `${ch.name} (${ch.id}), kept ${keep.length} of ${members.length} members`);
    return redirectWithFlash(c, `/channels/${ch.id}`, {
      notice: `“${ch.name}” is private: ${keep.length === 1 ? 'only you see it' : `${keep.length} members see it`}. Add or remove people below.`,
    });
  });
  return r;
}
