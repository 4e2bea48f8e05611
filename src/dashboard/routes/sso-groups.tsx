import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { ROLES } from '../../domain/accounts.js';
import { AppError } from '../../domain/errors.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit, requireRecentSignIn } from '../http/guards.js';
import { formOf, requireRole } from '../http/session.js';
import { ssoGroupsPage, type SsoGroupsForm } from '../pages/sso-groups.js';

export const SSO_GROUPS_PATH = '/members/sso-groups';
/** The checkbox of each private channel a mapping may open: `channel_<id>`. */
export const CHANNEL_FIELD = 'channel_';
const OWNERS = ['owner'] as const;

const mappingSchema = z.object({
  group: z.string().trim().min(1, 'Enter the group’s name as your identity provider sends it').max(200, 'At most 200 characters'),
  role: z.enum(ROLES, 'Choose a role'),
});

/**
 * The owners' page for single sign-on's group mappings (docs/sso.md): which group gives which role
 * and which private channels. Owners only: a mapping can make owners. Mounted inside the members
 * routes, whose session middleware covers /members/*.
 */
export function ssoGroupRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const sso = deps.services.sso.signOn;
  const configured = deps.relyingParty !== undefined || deps.services.config.sso.authProxy !== undefined;

  const show = async (c: Context<DashEnv>, form?: SsoGroupsForm, status: 400 | 200 = 200) => {
    const ws = requireRole(c, OWNERS);
    const [mappings, channels] = await Promise.all([sso.mappingsOf(ws.id), sso.mappableChannels(ws.id)]);
    return ssoGroupsPage(c, { mappings, channels, configured, form }, status);
  };

  r.get(SSO_GROUPS_PATH, (c) => show(c));

  r.post(SSO_GROUPS_PATH, async (c) => {
    const ws = requireRole(c, OWNERS);
    const form = await formOf(c);
    const mappable = new Map((await sso.mappableChannels(ws.id)).map((ch) => [ch.id, ch]));
    const picked = Object.keys(form)
      .filter((k) => k.startsWith(CHANNEL_FIELD))
      .map((k) => k.slice(CHANNEL_FIELD.length));
    const parsed = mappingSchema.safeParse({ group: form.group ?? '', role: form.role ?? 'member' });
    const errors: Record<string, string | undefined> = parsed.success ? {} : Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
    if (picked.some((id) => !mappable.has(id))) errors.channels = 'Choose among the private channels listed';
    if (!parsed.success || errors.channels) return show(c, { values: form, picked, errors }, 400);
    await requireRecentSignIn(c, deps, form);
    const { group, role } = parsed.data;
    let opened: { slug: string }[];
    try {
      opened = await sso.setMapping({ workspaceId: ws.id, group, role }, picked);
    } catch (err) {
      // A channel made public or deleted since the page was shown: said next to the channels.
      if (err instanceof AppError && (err.code === 'invalid-body' || err.code === 'not-found')) {
        return show(c, { values: form, picked, errors: { channels: err.detail ?? 'Choose among the private channels listed' } }, 400);
      }
      throw err;
    }
    const slugs = opened.map((ch) => `#${ch.slug}`).join(', ');
    await audit(c, deps, 'sso.group-mapped', `${group} → ${role}${slugs ? ` and ${slugs}` : ''}`);
    return redirectWithFlash(c, SSO_GROUPS_PATH, {
      notice: `Group “${group}” now gives the ${role} role${slugs ? ` and access to ${slugs}` : ''}, from each member’s next sign-in.`,
    });
  });

  // Not …/remove: /members/:id/remove would take it first.
  r.post(`${SSO_GROUPS_PATH}/unmap`, async (c) => {
    const ws = requireRole(c, OWNERS);
    const form = await formOf(c);
    const group = form.group ?? '';
    if (!(await sso.rows.mappings(ws.id)).some((m) => m.group === group)) return c.notFound();
    await requireRecentSignIn(c, deps, form);
    if (!(await sso.removeMapping(ws.id, group))) return c.notFound();
    await audit(c, deps, 'sso.group-unmapped', group);
    return redirectWithFlash(c, SSO_GROUPS_PATH, {
      notice: `Group “${group}” is no longer mapped. The memberships and channel access it gave go at each member’s next sign-in.`,
    });
  });

  return r;
}
