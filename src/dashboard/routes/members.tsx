import { Hono } from 'hono';
import { z } from 'zod';
import { ROLES, type Role } from '../../domain/accounts.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { Forbidden } from '../http/errors.js';
import { audit, requireRecentSignIn } from '../http/guards.js';
import { formOf, requireRole, requireSession } from '../http/session.js';
import { auditPage, membersPage } from '../pages/members.js';
import { mailSignInLink, signInUrl } from '../sign-in-link.js';

const MANAGERS = ['owner', 'admin'] as const;
const inviteSchema = z.object({
  email: z.string().trim().email('Enter an e-mail address'),
  role: z.enum(ROLES, 'Choose a role'),
});

export function memberRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  for (const p of ['/members', '/members/*', '/audit']) r.use(p, requireSession(deps));

  r.get('/members', async (c) => membersPage(c, { members: await deps.accounts.listMembers(requireRole(c).id), mailEnabled: deps.mailer !== null }));

  r.post('/members/invite', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const form = await formOf(c);
    const parsed = inviteSchema.safeParse({ email: form.email ?? '', role: form.role ?? 'member' });
    const members = () => deps.accounts.listMembers(ws.id);
    if (!parsed.success) {
      const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
      return membersPage(c, { members: await members(), mailEnabled: deps.mailer !== null, errors, values: form }, 400);
    }
    const { email, role } = parsed.data;
    // Only an owner may make owners: an admin must not be able to promote past themselves.
    if (role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can invite owners');
    // Only a verified address names an existing account: one typed without proof reaches nobody.
    const user = await deps.accounts.findUserByVerifiedEmail(email) ?? await deps.accounts.createUser(email);
    if ((await members()).some((m) => m.id === user.id)) {
      return membersPage(c, { members: await members(), mailEnabled: deps.mailer !== null, errors: { email: 'Already a member' }, values: form }, 400);
    }
    await deps.accounts.addMember(ws.id, user.id, role);
    await audit(c, deps, 'member.invited', `${user.email} as ${role}`);
    const { secret, expiresAt } = await deps.links.issue(user.id, { invite: true });
    const url = signInUrl(deps.services.config.publicUrl, secret);
    let mailed = false;
    if (deps.mailer) {
      try {
        await mailSignInLink(deps.mailer, user.email, url, expiresAt, `join ${ws.name} on Alertbridge`);
        mailed = true;
      } catch (err) {
        deps.services.logger.warn({ userId: user.id, err: (err as Error).message }, 'invitation e-mail failed');
      }
    }
    return membersPage(c, { members: await members(), mailEnabled: deps.mailer !== null, invited: { email: user.email, url: mailed ? undefined : url } }, 201);
  });

  /** Role changes and removals: managers only, never leaving the workspace without an owner. */
  const target = async (c: Parameters<typeof requireRole>[0], userId: string) => {
    const ws = requireRole(c, MANAGERS);
    const members = await deps.accounts.listMembers(ws.id);
    const m = members.find((x) => x.id === userId);
    const owners = members.filter((x) => x.role === 'owner').length;
    return { ws, m, lastOwner: m?.role === 'owner' && owners === 1 };
  };

  r.post('/members/:id/role', async (c) => {
    const { ws, m, lastOwner } = await target(c, c.req.param('id'));
    if (!m) return c.notFound();
    const form = await formOf(c);
    const role = form.role as Role;
    if (!ROLES.includes(role)) throw new Forbidden('unknown role');
    if ((role === 'owner' || m.role === 'owner') && ws.role !== 'owner') throw new Forbidden('only owners can make or unmake owners');
    if (lastOwner && role !== 'owner') throw new Forbidden('the last owner cannot be demoted: make someone else owner first');
    await requireRecentSignIn(c, deps, form);
    await deps.accounts.addMember(ws.id, m.id, role);
    await audit(c, deps, 'member.role-changed', `${m.email}: ${m.role} → ${role}`);
    return c.redirect('/members?changed=1', 303);
  });

  r.post('/members/:id/remove', async (c) => {
    const { ws, m, lastOwner } = await target(c, c.req.param('id'));
    if (!m) return c.notFound();
    if (m.role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can remove owners');
    if (lastOwner) throw new Forbidden('the last owner cannot be removed');
    await requireRecentSignIn(c, deps, await formOf(c));
    await deps.accounts.removeMember(ws.id, m.id);
    await audit(c, deps, 'member.removed', m.email);
    return c.redirect('/members?removed=1', 303);
  });

  r.get('/audit', async (c) => auditPage(c, await deps.audit.list(requireRole(c, MANAGERS).id)));

  return r;
}
