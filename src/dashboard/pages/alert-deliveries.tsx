import type { Context } from 'hono';
import type { AlertDeliveryView } from '../../domain/routes/alert-deliveries.js';
import type { RouteKind } from '../../domain/routes/route-kinds.js';
import type { DashEnv } from '../http/env.js';
import { DataTable, TimeCell } from '../views/components.js';
import { page } from '../views/render.js';
import { KIND_INFO } from './route-form.js';

const KIND_WORD = { route: 'Route', email: 'E-mail', push: 'Push' } as const;
/** Stored states in the words people use; `sent` is what the receiver accepted. */
const STATUS_WORD: Record<string, string> = { pending: 'waiting', sending: 'sending', sent: 'delivered', delivered: 'delivered', skipped: 'skipped', failed: 'failed' };

/**
 * "Where did this alert go?" (issue 27): every delivery of one alert, route, e-mail and push, with
 * its masked target, state, attempts and last answer. Rows are what AlertDeliveries lets the viewer
 * see (the API's rule): route rows for everyone, e-mail and push rows their own unless a manager.
 */
export function alertDeliveriesPage(
  c: Context<DashEnv>,
  o: { alert: { id: string; title: string; channelId: string }; channel: { name: string; slug: string }; deliveries: AlertDeliveryView[]; routeKinds: Map<string, RouteKind>; manager: boolean },
) {
  return page(
    c,
    `Deliveries of ${o.alert.title}`,
    'feed',
    <>
      <p class="breadcrumb">
        <a href={`/feed/c/${o.channel.slug}#alert-${o.alert.id}`}>{o.channel.name}</a> / Deliveries
      </p>
      <h1>Deliveries of “{o.alert.title}”</h1>
      <p class="lead">
        {o.manager
          ? 'Every route, e-mail and push delivery of this alert.'
          : 'This alert’s route deliveries, and the e-mail and push notifications sent to you.'}
      </p>
      {o.deliveries.length === 0 ? (
        <p class="muted">Nothing was sent for this alert: no route forwards it and no one was notified.</p>
      ) : (
        <div class="delivery-log">
        <DataTable columns={['Kind', 'To', 'Status', 'Attempts', 'Last answer', 'When']} caption="Deliveries">
          {o.deliveries.map((d) => {
            const status = STATUS_WORD[d.status] ?? d.status;
            const kind = d.kind === 'route' && d.routeId && o.routeKinds.has(d.routeId) ? KIND_INFO[o.routeKinds.get(d.routeId)!].label : KIND_WORD[d.kind];
            return (
              <tr>
                <td data-label="Kind">{kind}</td>
                <td data-label="To">
                  {/* Owners and admins manage routes: the target leads to the route's page (its test, filters, Resume). */}
                  {o.manager && d.kind === 'route' && d.routeId && o.routeKinds.has(d.routeId) ? (
                    <a href={`/channels/${o.alert.channelId}/routes/${d.routeId}`}>
                      <code>{d.target}</code>
                    </a>
                  ) : (
                    <code>{d.target}</code>
                  )}
                </td>
                <td data-label="Status">
                  <span class={`delivery-status ${status === 'delivered' ? 'delivered' : status}`}>{status}</span>
                </td>
                <td data-label="Attempts" class="num">
                  {d.attempts}
                </td>
                <td data-label="Last answer">
                  {d.lastStatus !== null ? `HTTP ${d.lastStatus}` : d.lastError ? '' : <span class="muted">—</span>}
                  {d.lastError ? <span class="delivery-error">{d.lastError}</span> : null}
                </td>
                <TimeCell label="When" iso={d.lastAttemptAt} />
              </tr>
            );
          })}
        </DataTable>
        </div>
      )}
    </>,
  );
}
