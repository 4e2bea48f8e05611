import type { Context, Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import { quietFieldOf } from '../../domain/quiet-hours.js';
import type { DashboardDeps } from '../deps.js';
import type { DashEnv } from '../http/env.js';
import { redirectWithFlash } from '../http/flash.js';
import { formOf } from '../http/session.js';
import type { QuietHoursView } from '../views/quiet-hours.js';

/** Renders the Profile page again with the quiet-hours card as given (a refused form), with `status`. */
type RenderProfile = (c: Context<DashEnv>, quiet: QuietHoursView, status: 400) => Promise<Response>;

/** The Profile's quiet hours (Post/Redirect/Get; a refused value is shown next to its field). */
export function quietHoursRoutes(r: Hono<DashEnv>, deps: DashboardDeps, render: RenderProfile): void {
  r.post('/profile/quiet-hours', async (c) => {
    const form = await formOf(c);
    const values = { start: form.start ?? '', end: form.end ?? '', timeZone: form.timeZone ?? '', minLevel: form.minLevel ?? '' };
    const viewer = c.get('viewer');
    try {
      await deps.services.quietHours.set(viewer.id, values);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const field = quietFieldOf(err) ?? 'start';
      return render(c, { current: await deps.services.quietHours.get(viewer.id), errors: { [field]: err.detail }, values }, 400);
    }
    return redirectWithFlash(c, '/profile#quiet-hours', { notice: 'Quiet hours saved.' });
  });

  r.post('/profile/quiet-hours/clear', async (c) => {
    await deps.services.quietHours.clear(c.get('viewer').id);
    return redirectWithFlash(c, '/profile#quiet-hours', { notice: 'Quiet hours are off.' });
  });
}
