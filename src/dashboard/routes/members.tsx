import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { ROLES, type Role } from '../../domain/accounts.js';
import type { InvitationRecord } from '../../domain/auth/invitations.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { Forbidden } from '../http/errors.js';
import { audit, requireRecentSignIn } from '../http/guards.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { auditPage, membersPage } from '../pages/members.js';
import { invitationUrl, mailInvitation } from '../invitation-mail.js';
import { redirectWithFlash } from '../http/flash.js';
import { ssoGroupRoutes } from './sso-groups.js';

const MANAGERS = ['owner', 'admin'] as const;
const inviteSchema = z.object({
  email: z.string().trim().max(254, 'At most 254 characters').email('Enter an e-mail address'),
  role: z.enum(ROLES, 'Choose a role'),
});

export function memberRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  for (const p of ['/members', '/members/*', '/audit']) r.use(p, requireSession(deps));

  const view = async (c: Context<DashEnv>, ws: { id: string }) => ({
    members: await deps.accounts.listMembers(ws.id),
    invitations: isManager(requireRole(c).role) ? await deps.invitations.pendingOfWorkspace(ws.id) : [],
    now: deps.services.clock.now(),
    mailEnabled: deps.mailer !== null,
  });

  r.get('/members', async (c) => membersPage(c, await view(c, requireRole(c))));

  /**
   * Back to the list either way (Post/Redirect/Get). Mailed: a notice naming who was invited. Not
   * mailed (mail off, or the send failed): the link rides in the flash, so the page it lands on is the
   * only place it ever appears, once.
   */
  const deliver = async (c: Context<DashEnv>, sent: { invitation: InvitationRecord; secret: string }, verb: 'invited' | 're-issued') => {
    const inv = sent.invitation;
    const again = verb === 're-issued' ? ' The earlier link no longer works.' : '';
    if (await mailInvitation(deps, inv, sent.secret, c.get('viewer').name)) {
      return redirectWithFlash(c, '/members', { notice: `Invitation ${verb === 'invited' ? 'e-mailed to' : 're-issued and e-mailed to'} ${inv.email} as ${inv.role}.${again}` });
    }
    const url = invitationUrl(deps.services.config.publicUrl, sent.secret);
    return redirectWithFlash(c, '/members?link=1', {
      notice: `${inv.email} ${verb === 'invited' ? 'invited' : 're-invited'} as ${inv.role}.${again}`,
      invitation: { email: inv.email, url, expiresAt: inv.expiresAt, mailFailed: deps.mailer !== null },
    });
  };

  r.post('/members/invite', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const form = await formOf(c);
    const parsed = inviteSchema.safeParse({ email: form.email ?? '', role: form.role ?? 'member' });
    if (!parsed.success) {
      const errors = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message]));
      return membersPage(c, { ...(await view(c, ws)), errors, values: form }, 400);
    }
    const { email, role } = parsed.data;
    // Only an owner may make owners: an admin must not be able to promote past themselves.
    if (role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can invite owners');
    if ((await deps.accounts.listMembers(ws.id)).some((m) => m.email.toLowerCase() === email.toLowerCase())) {
      return membersPage(c, { ...(await view(c, ws)), errors: { email: `${email} is already a member of this workspace. Change their role in the list above.` }, values: form }, 409);
    }
    await requireRecentSignIn(c, deps, form);
    // No account is looked up or made here: whether one exists is decided when the invitation is accepted.
    const sent = await deps.invitations.invite({ workspaceId: ws.id, email, role, invitedBy: c.get('viewer').id });
    await audit(c, deps, sent.reissued ? 'member.invitation-reissued' : 'member.invited', `${sent.invitation.email} as ${role}`);
    return deliver(c, sent, sent.reissued ? 're-issued' : 'invited');
  });

  r.post('/members/invitations/:id/reissue', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const pending = (await deps.invitations.pendingOfWorkspace(ws.id)).find((i) => i.id === c.req.param('id'));
    if (!pending) return c.notFound();
    if (pending.role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can re-issue an invitation of an owner');
    await requireRecentSignIn(c, deps, await formOf(c));
    const sent = await deps.invitations.reissue(ws.id, pending.id, c.get('viewer').id);
    if (!sent) return c.notFound();
    await audit(c, deps, 'member.invitation-reissued', `${sent.invitation.email} as ${sent.invitation.role}`);
    return deliver(c, sent, 're-issued');
  });

  r.post('/members/invitations/:id/withdraw', async (c) => {
    const ws = requireRole(c, MANAGERS);
    const pending = (await deps.invitations.pendingOfWorkspace(ws.id)).find((i) => i.id === c.req.param('id'));
    if (!pending) return c.notFound();
    if (pending.role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can withdraw an invitation of an owner');
    const gone = await deps.invitations.withdraw(ws.id, pending.id);
    if (!gone) return c.notFound();
    await audit(c, deps, 'member.invitation-withdrawn', `${gone.email} as ${gone.role}`);
    return redirectWithFlash(c, '/members', { notice: `Invitation of ${gone.email} withdrawn. Its link no longer works.` });
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
    return redirectWithFlash(c, '/members', { notice: role === m.role ? `${m.name} stays ${role}.` : `${m.name} is now ${role === 'admin' ? 'an' : 'a'} ${role} (was ${m.role}).` });
  });

  r.post('/members/:id/remove', async (c) => {
    const { ws, m, lastOwner } = await target(c, c.req.param('id'));
    if (!m) return c.notFound();
    if (m.role === 'owner' && ws.role !== 'owner') throw new Forbidden('only owners can remove owners');
    if (lastOwner) throw new Forbidden('the last owner cannot be removed');
    await requireRecentSignIn(c, deps, await formOf(c));
    await deps.accounts.removeMember(ws.id, m.id);
    await audit(c, deps, 'member.removed', m.email);
    return redirectWithFlash(c, '/members', { notice: `${m.name} (${m.email}) removed from the workspace. Their tokens stop working at once.` });
  });

  r.get('/audit', async (c) => auditPage(c, await deps.audit.list(requireRole(c, MANAGERS).id)));
  // Under /members/*, so the session middleware above covers it.
  r.route('/', ssoGroupRoutes(deps));

  return r;
}
