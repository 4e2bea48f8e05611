import { Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/auth/passwords.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { requireRecentSignIn } from '../http/guards.js';
import { formOf, requireSession } from '../http/session.js';
import { profilePage } from '../pages/profile.js';

export function profileRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  r.use('/profile', requireSession(deps));
  r.use('/profile/*', requireSession(deps));
  const view = (c: Parameters<typeof profilePage>[0]) => ({
    hasPassword: deps.passwords.hasPassword(c.get('viewer').id),
    levels: deps.services.notifyPrefs.list(c.get('viewer').id).filter((l) => l.workspace.id === c.get('workspace')?.id),
  });

  r.get('/profile', (c) => profilePage(c, view(c)));

  r.post('/profile/password', async (c) => {
    const form = await formOf(c);
    const password = form.new_password ?? '';
    const error =
      password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH
        ? `Use ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`
        : password !== form.repeat_password
          ? 'The two passwords differ'
          : undefined;
    if (error) return profilePage(c, { ...view(c), passwordError: error }, 400);
    // Changing a password is as sensitive as the actions it protects.
    await requireRecentSignIn(c, deps, form);
    try {
      await deps.passwords.set(c.get('viewer').id, password);
    } catch (err) {
      if (err instanceof AppError) return profilePage(c, { ...view(c), passwordError: err.detail }, 400);
      throw err;
    }
    return c.redirect('/profile?password=1', 303);
  });

  return r;
}
