import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AlertLevel } from '../../domain/alert-store.js';
import { AppError, notFound } from '../../domain/errors.js';
import type { Principal } from '../../domain/tokens.js';
import type { DashboardDeps } from '../deps.js';
import { feedPage } from '../feed/feed-query.js';
import type { DashEnv } from '../http/env.js';
import { localRedirect } from '../http/local-redirect.js';
import { alertDeletion } from '../../domain/alert-deletion.js';
import { redirectWithFlash } from '../http/flash.js';
import { audit } from '../http/guards.js';
import { lifecycleRequestOf } from '../feed/lifecycle-form.js';
import { parseFeedStatus, type StatusFilter } from '../../domain/feed-preferences.js';
import { formOf, isManager, requireRole, requireSession } from '../http/session.js';
import { deleteAlertPage } from '../pages/feed-delete.js';
import { FeedItems, feedPageView, feedUrl, LEVELS, type FeedScope, type FeedState } from '../pages/feed.js';
import { FeedEntry } from '../pages/feed-entry.js';
import { sendTestAlert } from '../../domain/webhook/test-alert.js';

/** Cards per page: a screenful and a half on a desktop, so "revealed" fires once the reader scrolls. */
export const FEED_PAGE_SIZE = 25;

/**
 * The read API's principal for a dashboard session: the same visibility rule
 * and read state as a token of this user. The token id names the session
 * (its hash prefix, never the secret) so per-"token" limits count per session.
 */
export function sessionPrincipal(c: Context<DashEnv>): Principal {
  const ws = requireRole(c);
  return { tokenId: `session:${c.get('session').idHash.slice(0, 16)}`, userId: c.get('viewer').id, workspaceId: ws.id };
}

function queryIssue(detail: string, path: string): AppError {
  return new AppError('invalid-query', detail, { details: [{ code: 'invalid_value', message: detail, path: [path] }] });
}

/** A local path to go back to after a form post (never another site). */
function backTo(raw: string | undefined, publicUrl: string): string {
  // No fragment: the page is drawn from the top (the delete handler's flash names what was done).
  const path = localRedirect(raw, publicUrl)?.replace(/#.*$/, '');
  return path && /^\/(?:feed|search)(?:[/?]|$)/.test(path) ? path : '/feed';
}

export function feedRoutes(deps: DashboardDeps): Hono<DashEnv> {
  const r = new Hono<DashEnv>();
  const { services } = deps;
  r.use('/feed', requireSession(deps));
  r.use('/feed/*', requireSession(deps));

  const show = async (c: Context<DashEnv>, scopeOf: (channels: Awaited<ReturnType<typeof services.readApi.listChannels>>) => FeedScope) => {
    const p = sessionPrincipal(c);
    const channels = await services.readApi.listChannels(p);
    const scope = scopeOf(channels);
    const levelRaw = c.req.query('level') || undefined;
    if (levelRaw !== undefined && !LEVELS.includes(levelRaw as AlertLevel)) throw queryIssue(`level must be one of ${LEVELS.join(', ')}`, 'level');
    const level = levelRaw as AlertLevel | undefined;
    const before = c.req.query('before') || undefined;
    if (before !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(before)) throw queryIssue('before must be an alert id', 'before');
    // The status filter: the one asked for (and remembered for next time), else the one remembered.
    const statusRaw = c.req.query('status');
    const userId = c.get('viewer').id;
    let status: StatusFilter;
    if (statusRaw === undefined) status = await services.feedPreferences.statusFilter(userId);
    else {
      status = parseFeedStatus(statusRaw || 'all');
      await services.feedPreferences.rememberStatusFilter(userId, status);
    }
    const state: FeedState = { scope, level: scope.kind === 'channel' && scope.channel.chat ? undefined : level, status, unreadOnly: scope.kind === 'unread' || c.req.query('unread') === '1',
      membersOnly: scope.kind === 'channel' && scope.channel.chat !== null && c.req.query('members') === '1',
    };
    const feed = await feedPage(services, p, {
      channels: scope.kind === 'channel' ? [scope.channel] : channels,
      level: state.level,
      status: status === 'all' ? undefined : status,
      unreadOnly: state.unreadOnly,
      membersOnly: state.membersOnly,
      cursor: before,
      limit: FEED_PAGE_SIZE,
    });
    // htmx's "Load older" wants only the next cards, in place of its button.
    const density = await services.userSettings.feedDensity(p.userId);
    if (c.req.query('fragment') === '1') return c.html(<FeedItems feed={feed} state={state} csrfToken={c.get('csrfToken')} manager={isManager(c.get('workspace')?.role)} density={density} />);
    // Nothing at all to show (no filter, no cursor): the first steps instead of "No alerts yet".
    const empty = feed.items.length === 0 && feed.nextCursor === null && !before && !state.level && !state.unreadOnly && !state.membersOnly;
    const target = scope.kind === 'channel' ? scope.channel : channels.find((ch) => !ch.chat);
    const onboarding =
      empty && scope.kind !== 'unread' && !target?.chat
        ? {
            channel: target,
            publicUrl: services.config.publicUrl,
            reveal: c.req.query('reveal') === '1',
            manager: isManager(c.get('workspace')?.role),
            csrfToken: c.get('csrfToken'),
            back: feedUrl(state),
            revealHref: feedUrl(state, { reveal: '1' }),
          }
        : undefined;
    return feedPageView(c, { channels, state, feed, density, onboarding });
  };

  r.get('/feed', (c) => show(c, () => ({ kind: 'all' })));
  r.get('/feed/unread', (c) => show(c, () => ({ kind: 'unread' })));
  r.get('/feed/c/:channel', (c) =>
    show(c, (channels) => {
      const ref = c.req.param('channel');
      const channel = channels.find((ch) => ch.slug === ref || ch.id === ref);
      if (!channel) throw notFound('channel');
      return { kind: 'channel', channel };
    }),
  );

  r.post('/feed/read/:alertId', async (c) => {
    const p = sessionPrincipal(c);
    const form = await formOf(c);
    const alert = await services.readApi.setRead(p, c.req.param('alertId'), form.read !== '0');
    if (c.req.header('hx-request') !== 'true') return c.redirect(backTo(form.back, services.config.publicUrl), 303);
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.id === alert.channelId)!;
    c.header('HX-Trigger', JSON.stringify({ 'ab-unread': { channelId: channel.id, unread: channel._count.alerts } }));
    return c.html(<FeedEntry alert={alert} channel={channel} csrfToken={c.get('csrfToken')} manager={isManager(c.get('workspace')?.role)} />);
  });

  // The reader's density, kept per user: Post/Redirect/Get back to the feed, drawn that way (204 for a script's request).
  r.post('/feed/density', async (c) => {
    const form = await formOf(c);
    await services.userSettings.setFeedDensity(c.get('viewer').id, form.density ?? '');
    if (c.req.header('hx-request') === 'true') return c.body(null, 204);
    return c.redirect(backTo(form.back, services.config.publicUrl), 303);
  });

  // "Send a test alert": a sample through the webhook's own use case, into a channel the reader can see
  // (anyone who may reveal its webhook URL could post the same with curl). The card arrives by the live stream.
  r.post('/feed/test-alert', async (c) => {
    const p = sessionPrincipal(c);
    const form = await formOf(c);
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.id === form.channel);
    if (!channel) throw notFound('channel');
    await sendTestAlert(services, channel.webhookToken, c.get('viewer').name);
    if (c.req.header('hx-request') === 'true') return c.body(null, 204);
    return c.redirect(backTo(form.back, services.config.publicUrl), 303);
  });

  // The lifecycle buttons and keys (views/lifecycle-actions.tsx): anyone who can see the alert.
  r.post('/feed/status/:alertId', async (c) => {
    const p = sessionPrincipal(c);
    const form = await formOf(c);
    const now = services.clock.now();
    const request = lifecycleRequestOf(form.action, form.tz, now);
    if (!request) throw new AppError('invalid-body', 'action must be acknowledge, resolve, reopen, unsnooze or snooze:1h, snooze:4h, snooze:tomorrow');
    const alertId = c.req.param('alertId');
    await services.alertActions.change(p, alertId, request, 'dashboard');
    if (c.req.header('hx-request') !== 'true') return c.redirect(backTo(form.back, services.config.publicUrl), 303);
    const alert = await services.readApi.getAlert(p, alertId);
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.id === alert.channelId)!;
    return c.html(<FeedEntry alert={alert} channel={channel} csrfToken={c.get('csrfToken')} manager={isManager(c.get('workspace')?.role)} now={now} />);
  });

  r.post('/feed/read-all', async (c) => {
    const p = sessionPrincipal(c);
    const form = await formOf(c);
    await services.readApi.markAllRead(p, form.channel || undefined);
    return c.redirect(backTo(form.back, services.config.publicUrl), 303);
  });

  // Deleting one alert: owners and admins, after a confirmation page (a plain link, so it works without JS).
  const MANAGERS = ['owner', 'admin'] as const;
  r.get('/feed/delete/:alertId', async (c) => {
    requireRole(c, MANAGERS);
    const p = sessionPrincipal(c);
    const alert = await services.readApi.getAlert(p, c.req.param('alertId'));
    const channel = (await services.readApi.listChannels(p)).find((ch) => ch.id === alert.channelId)!;
    return deleteAlertPage(c, { alert, channel, back: backTo(c.req.query('back'), services.config.publicUrl) });
  });
  r.post('/feed/delete/:alertId', async (c) => {
    requireRole(c, MANAGERS);
    const p = sessionPrincipal(c);
    const form = await formOf(c);
    const done = await alertDeletion(services).deleteAlert(c.req.param('alertId'), p);
    await audit(c, deps, 'alert.deleted', done.id);
    const back = backTo(form.back, services.config.publicUrl);
    return redirectWithFlash(c, back, { notice: 'Alert deleted.' });
  });

  return r;
}
