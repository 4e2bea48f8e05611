import { Hono } from 'hono';
import { z } from 'zod';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { Forbidden } from '../http/errors.js';
import { audit, requireRecentSignIn } from '../http/guards.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { tokensPage } from '../pages/tokens.js';
import { redirectWithFlash } from '../http/flash.js';
import { freeName } from '../http/suggest.js';

/** The same bound the CLI's token names live with (a label in lists). */
export const tokenNameSchema = z.string().trim().min(1, 'Give the token a name').max(100, 'At most 100 characters');

export function tokenRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.use('/tokens', requireSession(deps));
  r.use('/tokens/*', requireSession(deps));

  /** Members see their own tokens; owners and admins see everyone's. */
  const visibleTokens = async (c: Parameters<typeof requireRole>[0]) => {
    const ws = requireRole(c);
    const me = c.get('viewer').id;
    const names = new Map((await deps.accounts.listMembers(ws.id)).map((m) => [m.id, m.name]));
    return (await deps.accounts.listTokens(ws.id))
      .filter((t) => isManager(ws.role) || t.userId === me)
      .map((t) => ({ ...t, ownerName: names.get(t.userId) ?? 'former member' }));
  };

  r.get('/tokens', async (c) => tokensPage(c, { tokens: await visibleTokens(c), publicUrl: deps.services.config.publicUrl }));

  r.post('/tokens', async (c) => {
    const ws = requireRole(c);
    const form = await formOf(c);
    const name = tokenNameSchema.safeParse(form.name ?? '');
    if (!name.success) {
      return tokensPage(c, { tokens: await visibleTokens(c), publicUrl: deps.services.config.publicUrl, nameError: name.error.issues[0]?.message, name: form.name }, 400);
    }
    // Two live tokens of one person with one name could not be told apart in the list (or revoked rightly).
    const mine = (await deps.accounts.listTokens(ws.id)).filter((t) => !t.revokedAt && t.userId === c.get('viewer').id).map((t) => t.name);
    if (mine.some((n) => n.toLowerCase() === name.data.toLowerCase())) {
      const nameError = `You already have a token named “${name.data}”. Try “${freeName(name.data, mine)}”, or revoke the old one first.`;
      return tokensPage(c, { tokens: await visibleTokens(c), publicUrl: deps.services.config.publicUrl, nameError, name: form.name }, 409);
    }
    await requireRecentSignIn(c, deps, form);
    const readOnly = form['read-only'] === 'on';
    const created = await deps.accounts.createToken(ws.id, c.get('viewer').id, name.data, { readOnly });
    await audit(c, deps, 'token.created', `${name.data} (${created.id})${readOnly ? ', read-only' : ''}`);
    // The token's only appearance is the page this redirects to, through a flash sealed to this session.
    return redirectWithFlash(c, '/tokens?created=1', { token: { name: name.data, token: created.token } });
  });

  r.post('/tokens/:id/revoke', async (c) => {
    const ws = requireRole(c);
    const token = (await deps.accounts.listTokens(ws.id)).find((t) => t.id === c.req.param('id'));
    if (!token) return c.notFound();
    if (token.userId !== c.get('viewer').id && !isManager(ws.role)) throw new Forbidden("only owners and admins may revoke another member's token");
    await deps.accounts.revokeToken(token.id);
    await audit(c, deps, 'token.revoked', `${token.name} (${token.id})`);
    return redirectWithFlash(c, '/tokens', { notice: `Token “${token.name}” revoked. The API refuses it from now on.` });
  });

  return r;
}
