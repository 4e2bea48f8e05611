import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ROUTE_KINDS, type RouteKind } from '../../domain/routes/route-kinds.js';
import type { RoutePreview } from '../../domain/routes/route-preview.js';
import type { RouteView } from '../../domain/routes/routes.js';
import type { DashEnv } from '../http/env.js';
import { flashOf } from '../http/flash.js';
import type { ChannelRecord } from '../ports.js';
import { Card, CopyBox, Notice, PostForm, Time } from '../views/components.js';
import { page } from '../views/render.js';
import { EVENT_WORDS, FilterFields, KIND_INFO, TargetFields, type RouteFormErrors, type RouteFormValues } from './route-form.js';
import { RoutePreviewBox } from './route-preview.js';

/** How a route is named wherever one is chosen or confirmed: "Slack → hooks.slack.com/…ZZZZ". */
export const routeName = (r: Pick<RouteView, 'kind' | 'target'>) => `${KIND_INFO[r.kind].label} → ${r.target}`;

const iso = (ms: number) => new Date(ms).toISOString();

/** The state a route is in, in words (colour never alone): active, paused (why), or disabled (no key). */
function RouteState(props: { route: RouteView }) {
  const r = props.route;
  if (r.disabled) return <span class="badge route-badge disabled">disabled</span>;
  return r.state === 'paused' ? <span class="badge route-badge paused">paused</span> : <span class="badge route-badge active">active</span>;
}

const filterSummary = (r: RouteView) =>
  [
    r.minLevel === 'INFO' ? 'every level' : `${r.minLevel.toLowerCase()} and up`,
    r.events.map((e) => EVENT_WORDS[e].split(' ')[0]!.toLowerCase()).join(', '),
    ...(r.source ? [`source ${r.source}`] : []),
    ...r.fields.map((f) => `${f.label}=${f.value}`),
  ].join(' · ');

/**
 * The Routes card of channel settings (owners and admins): each route with its masked target,
 * state and filters, a paused one with its reason and a Resume button, and the way to add one.
 */
export function RoutesSection(props: { channelId: string; routes: RouteView[]; unavailable: string | null; csrf: string }) {
  const base = `/channels/${props.channelId}/routes`;
  return (
    <Card id="routes-title" title="Routes">
      <p>Forward this channel’s alerts to Slack, Discord, Teams, Telegram, Matrix, ntfy or a signed webhook. Every delivery is logged on its alert.</p>
      {props.unavailable ? <Notice kind="warn">Routes are disabled: {props.unavailable}</Notice> : null}
      {props.routes.length === 0 ? (
        <p class="muted">No routes yet.</p>
      ) : (
        <ul class="route-list">
          {props.routes.map((r) => (
            <li class="route-item">
              <div class="route-head">
                <a href={`${base}/${r.id}`} class="route-name">
                  {routeName(r)}
                </a>
                <RouteState route={r} />
              </div>
              <p class="hint">{filterSummary(r)}</p>
              {r.disabled ? <p class="error">{r.disabled}</p> : null}
              {r.state === 'paused' && !r.disabled ? (
                <div class="route-paused">
                  <p>
                    <b>Paused:</b> {r.pausedReason ?? 'paused'}
                  </p>
                  <PostForm action={`${base}/${r.id}/resume`} csrf={props.csrf} button="small" label={`Resume ${routeName(r)}`} submit="Resume">
                    <input type="hidden" name="from" value="settings" />
                  </PostForm>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {props.unavailable ? null : (
        <a class="button" href={`${base}/new`}>
          Add a route
        </a>
      )}
    </Card>
  );
}

function Breadcrumb(props: { channel: ChannelRecord; here: string }) {
  return (
    <p class="breadcrumb">
      <a href="/channels">Channels</a> / <a href={`/channels/${props.channel.id}#routes-title`}>{props.channel.name}</a> / {props.here}
    </p>
  );
}

/** Adding a route: first its kind (plain links, no script), then that kind's target and the filters. */
export function newRoutePage(
  c: Context<DashEnv>,
  o: { channel: ChannelRecord; kind: RouteKind | null; values: RouteFormValues; errors: RouteFormErrors; preview: RoutePreview | null },
  status: ContentfulStatusCode = 200,
) {
  const ch = o.channel;
  const kind = o.kind;
  return page(
    c,
    `Add a route · ${ch.name}`,
    'channels',
    <>
      <Breadcrumb channel={ch} here="Add a route" />
      <h1>Add a route</h1>
      <nav aria-label="Kind of route" class="kind-picker">
        {ROUTE_KINDS.map((k) => (
          <a href={`/channels/${ch.id}/routes/new?kind=${k}`} class={`kind-choice${k === kind ? ' chosen' : ''}`} aria-current={k === kind ? 'page' : undefined}>
            {KIND_INFO[k].label}
          </a>
        ))}
      </nav>
      {o.errors.form ? <Notice kind="error">{o.errors.form}</Notice> : null}
      {kind ? (
        <div class="route-columns">
          <Card id="route-form-title" title={`${KIND_INFO[kind].label} route`}>
            <p class="muted">{KIND_INFO[kind].where}</p>
            <PostForm action={`/channels/${ch.id}/routes`} csrf={c.get('csrfToken')} class="stack route-form" button="primary" submit="Add route">
              <input type="hidden" name="kind" value={kind} />
              <TargetFields kind={kind} values={o.values} errors={o.errors} />
              <FilterFields values={o.values} errors={o.errors} />
            </PostForm>
          </Card>
          {o.preview ? (
            <Card id="preview-title" title="Preview">
              <RoutePreviewBox preview={o.preview} label={KIND_INFO[kind].label} />
            </Card>
          ) : null}
        </div>
      ) : (
        <p class="muted">Choose where this channel’s alerts should go.</p>
      )}
    </>,
    status,
  );
}

/** One route: its state (and the reason it is paused), test, preview, filters, target, pause and delete. */
export function routePage(
  c: Context<DashEnv>,
  o: { channel: ChannelRecord; route: RouteView; values: RouteFormValues; errors: RouteFormErrors; preview: RoutePreview },
  status: ContentfulStatusCode = 200,
) {
  const { channel: ch, route: r } = o;
  const csrf = c.get('csrfToken');
  const base = `/channels/${ch.id}/routes/${r.id}`;
  const name = routeName(r);
  const flash = flashOf(c);
  const secret = flash?.routeSecret?.routeId === r.id ? flash.routeSecret.secret : null;
  const tested = flash?.routeTest?.routeId === r.id ? flash.routeTest : null;
  const label = KIND_INFO[r.kind].label;
  return page(
    c,
    `${label} route · ${ch.name}`,
    'channels',
    <>
      <Breadcrumb channel={ch} here={`${label} route`} />
      <h1 class="route-title">
        <span>{name}</span> <RouteState route={r} />
      </h1>
      {secret ? (
        <Card id="secret-title" title="Signing secret" class="created">
          <p>Copy it now into your receiver: it is not shown again. Receivers verify each delivery’s webhook-signature with it.</p>
          <CopyBox id="route-secret" label="Signing secret" value={secret} copyLabel="Copy signing secret" />
        </Card>
      ) : null}
      {o.errors.form ? <Notice kind="error">{o.errors.form}</Notice> : null}
      {r.state === 'active' && !r.disabled ? (
        // Reversible, so beside the state rather than in the danger zone (as GitHub's "Disable" of a webhook).
        <div class="route-state-row">
          <p class="muted">Active: new alerts that pass its filters are forwarded as they happen.</p>
          <PostForm action={`${base}/pause`} csrf={csrf} button="small" submit="Pause route" label={`Pause ${name}`} />
        </div>
      ) : null}
      {r.disabled ? <Notice kind="error">This route cannot send: {r.disabled}. It is kept; restore the key to send again.</Notice> : null}
      {r.state === 'paused' && !r.disabled ? (
        <Notice kind="warn">
          <div class="banner">
            <span>
              <b>Paused:</b> {r.pausedReason ?? 'paused'}. Deliveries wait; new events are not queued.
            </span>
            <PostForm action={`${base}/resume`} csrf={csrf} button="small" label={`Resume ${name}`} submit="Resume" />
          </div>
        </Notice>
      ) : null}

      <div class="route-columns">
        <Card id="test-title" title="Test">
          <p>Sends a sample alert through this route now and shows what {label} answered.</p>
          {tested ? (
            <div class={`notice ${tested.ok ? 'ok' : 'error'}`} role="status" id="test-answer">
              <p>
                <b>{tested.ok ? 'Delivered' : 'Not delivered'}</b>: {tested.status === null ? 'no answer' : `HTTP ${tested.status}`}
                {tested.error ? ` · ${tested.error}` : ''}
              </p>
              {tested.body ? <pre class="pv-code" tabindex={0}>{tested.body}</pre> : null}
            </div>
          ) : null}
          <PostForm action={`${base}/test`} csrf={csrf} submit="Send a test alert" disabled={Boolean(r.disabled)} />
          <dl class="facts route-facts">
            <dt>Target</dt>
            <dd>
              <code>{r.target}</code>
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={iso(r.createdAt)} />
            </dd>
            <dt>Deliveries</dt>
            <dd>on each alert’s Deliveries page, from its card</dd>
          </dl>
        </Card>
        <Card id="preview-title" title="Preview">
          <RoutePreviewBox preview={o.preview} label={label} />
        </Card>
      </div>

      <Card id="filters-title" title="What it forwards">
        <PostForm action={`${base}/filters`} csrf={csrf} class="stack route-form" submit="Save filters">
          <FilterFields values={o.values} errors={o.errors} />
        </PostForm>
      </Card>

      <Card id="target-title" title={`Replace the ${label} target`}>
        <p class="muted">
          Now <code>{r.target}</code>. {KIND_INFO[r.kind].where}
          {r.kind === 'webhook' ? ' The signing secret is kept unless you give a new one.' : ''}
        </p>
        <PostForm action={`${base}/target`} csrf={csrf} class="stack route-form" submit="Replace target">
          <TargetFields kind={r.kind} values={o.values} errors={o.errors} />
        </PostForm>
      </Card>

      <Card id="route-danger-title" title="Delete this route" class="danger-zone">
        <PostForm
          action={`${base}/delete`}
          csrf={csrf}
          class="stack"
          button="danger"
          submit="Delete route"
          label={`Delete ${name}`}
          confirm={{ question: `Delete the route ${name}?`, detail: 'Its pending and past deliveries go with it. This cannot be undone.', action: 'Delete route' }}
        >
          <p>Its pending and past deliveries go with it.</p>
        </PostForm>
      </Card>
    </>,
    status,
  );
}
