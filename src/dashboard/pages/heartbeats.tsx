import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { durationText } from '../../domain/heartbeats/alerts.js';
import type { HeartbeatCheck, StoredPing } from '../../domain/heartbeats/ports.js';
import { checkStatus, nextDueAt, type CheckStatus, type CheckTiming } from '../../domain/heartbeats/schedule.js';
import type { DashEnv } from '../http/env.js';
import { Card, CopyBox, DataTable, Field, Notice, PostForm, SelectField, Time } from '../views/components.js';
import { page } from '../views/render.js';

export type HeartbeatForm = Partial<Record<'channel' | 'name' | 'slug' | 'period' | 'cron' | 'tz' | 'grace', string>>;
export type HeartbeatFormErrors = Partial<Record<keyof HeartbeatForm, string>>;

export interface CheckRow {
  check: HeartbeatCheck;
  channel: string;
  pings: StoredPing[];
}

const STATE_LABEL: Record<CheckStatus, string> = { new: 'New', up: 'Up', late: 'Late', down: 'Down', paused: 'Paused' };
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** "3 min ago" / "in 12 min": the page is refreshed every few seconds, so a server-side text stays current. */
export function relative(ms: number | null, now: number): string {
  if (ms === null) return 'never';
  const d = Math.round((ms - now) / 1000);
  const a = Math.abs(d);
  const text = a < 60 ? `${a} s` : a < 7200 ? `${Math.round(a / 60)} min` : a < 172_800 ? `${Math.round(a / 3600)} h` : `${Math.round(a / 86_400)} d`;
  return d <= 0 ? `${text} ago` : `in ${text}`;
}

/** The "next due" text: a due time already passed reads "overdue by …", not "… ago" (the check is late). */
export function dueText(c: CheckTiming, now: number): string {
  if (c.status === 'paused') return '—';
  if (c.status === 'down') return 'overdue';
  const due = nextDueAt(c);
  if (due === null) return 'after the first ping';
  return due <= now ? `overdue by ${relative(due, now).replace(/ ago$/, '')}` : relative(due, now);
}

function StateDot(props: { state: CheckStatus }) {
  return (
    <span class={`hb-state hb-${props.state}`}>
      <span class="hb-dot" aria-hidden="true" />
      {STATE_LABEL[props.state]}
    </span>
  );
}

/** The last pings, oldest first, one mark each coloured by kind; named by its counts for screen readers. */
function PingStrip(props: { pings: StoredPing[] }) {
  const counts = new Map<string, number>();
  for (const p of props.pings) counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
  const label = props.pings.length ? `Last ${props.pings.length} pings: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}` : 'No pings yet';
  return (
    <span class="hb-strip" role="img" aria-label={label}>
      {[...props.pings].reverse().map((p) => (
        <span class={`hb-ping hb-ping-${p.kind}`} title={`${p.kind} ${new Date(p.createdAt).toISOString()}`} />
      ))}
    </span>
  );
}

/** The live part of the Heartbeats page: htmx reloads it every 5 seconds (no inline script). */
export function HeartbeatTable(props: { rows: CheckRow[]; now: number }) {
  return (
    <div id="heartbeat-table" hx-get="/heartbeats/table" hx-trigger="every 5s" hx-swap="outerHTML">
      {props.rows.length === 0 ? (
        <p class="muted">No heartbeat checks yet.</p>
      ) : (
        <DataTable caption="Heartbeat checks" columns={['State', 'Check', 'Channel', 'Last ping', 'Next due', 'Last duration', 'Last 50 pings']}>
          {props.rows.map(({ check: c, channel, pings }) => (
            <tr data-check={c.id}>
              <td data-label="State">
                <StateDot state={checkStatus(c, props.now)} />
              </td>
              <td data-label="Check">
                <a href={`/heartbeats/${c.id}`}>{c.name}</a>
              </td>
              <td data-label="Channel">{channel}</td>
              <td data-label="Last ping">{relative(c.lastPingAt, props.now)}</td>
              <td data-label="Next due">{dueText(c, props.now)}</td>
              <td data-label="Duration">{durationText(c.lastDurationMs)}</td>
              <td data-label="Pings">
                <PingStrip pings={pings} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}

export function heartbeatsPage(
  c: Context<DashEnv>,
  o: { rows: CheckRow[]; now: number; manager: boolean; channels: { id: string; slug: string; name: string }[]; form: HeartbeatForm; errors?: HeartbeatFormErrors },
  status: ContentfulStatusCode = 200,
) {
  const e = o.errors ?? {};
  const v = o.form;
  return page(
    c,
    'Heartbeats',
    'heartbeats',
    <>
      <h1>Heartbeats</h1>
      <p class="lead">
        A job pings its check's URL each time it runs. When a ping does not come in time the check goes down and an alert opens in its channel. The URLs
        work with Healthchecks' clients; each check's page has a cron line to paste.
      </p>
      <HeartbeatTable rows={o.rows} now={o.now} />
      {o.manager ? (
        <Card id="new-heartbeat" title="Create a check">
          {Object.keys(e).length ? <Notice kind="error">The check was not created: see the fields below.</Notice> : null}
          <PostForm action="/heartbeats" csrf={c.get('csrfToken')} class="grid-form" button="primary" submit="Create check">
            <SelectField name="channel" label="Channel" error={e.channel} options={o.channels.map((ch) => ({ value: ch.id, label: `#${ch.slug} (${ch.name})`, selected: v.channel === ch.id }))} />
            <Field name="name" label="Name" value={v.name} error={e.name} required maxlength={100} />
            <Field name="slug" label="Slug (optional)" value={v.slug} error={e.slug} hint="For /ping/{ping-key}/{slug}; made from the name when empty." />
            <Field name="period" label="Period" value={v.period} error={e.period} hint="Such as 1h or 1d; or leave empty and give a cron line." />
            <Field name="cron" label="Cron line" value={v.cron} error={e.cron} hint='Such as "0 3 * * *".' />
            <Field name="tz" label="Time zone of the cron line" value={v.tz ?? 'UTC'} error={e.tz} />
            <Field name="grace" label="Grace" value={v.grace ?? '10m'} error={e.grace} required hint="How late a ping may be before the check is down." />
          </PostForm>
        </Card>
      ) : null}
    </>,
    status,
  );
}

export function heartbeatPage(
  c: Context<DashEnv>,
  o: { check: HeartbeatCheck; channel: string; pings: StoredPing[]; now: number; manager: boolean; pingKey: string; publicUrl: string },
) {
  const h = o.check;
  const csrf = c.get('csrfToken');
  const url = `${o.publicUrl}/ping/${h.pingUuid}`;
  const schedule = h.schedule.kind === 'cron' ? `cron "${h.schedule.cron}" in ${h.schedule.timeZone}` : `every ${durationText(h.schedule.periodMs)}`;
  const cronLine = h.schedule.kind === 'cron' ? h.schedule.cron : '0 * * * *';
  return page(
    c,
    h.name,
    'heartbeats',
    <>
      <p>
        <a href="/heartbeats">← Heartbeats</a>
      </p>
      <h1>{h.name}</h1>
      <p class="lead">
        <StateDot state={checkStatus(h, o.now)} /> in {o.channel}, {schedule}, grace {durationText(h.graceMs)}. Last ping {relative(h.lastPingAt, o.now)}; next due{' '}
        {dueText(h, o.now)}.
      </p>
      <Card id="ping-urls" title="Ping it">
        <CopyBox id="hb-url" label="Ping URL" value={url} copyLabel="Copy the ping URL" />
        <CopyBox id="hb-slug-url" label="Slug URL" value={`${o.publicUrl}/ping/${o.pingKey}/${h.slug}`} copyLabel="Copy the slug URL" />
        <CopyBox id="hb-cron" label="Crontab line" multiline copyLabel="Copy the crontab line" value={`${cronLine} /path/to/job.sh && curl -fsS -m 10 --retry 5 ${url}`} />
        <CopyBox id="hb-curl" label="Report an exit status" multiline copyLabel="Copy the commands" value={`curl -fsS -m 10 --retry 5 ${url}/start; /path/to/job.sh; curl -fsS -m 10 --retry 5 ${url}/$?`} />
      </Card>
      {o.manager ? (
        <Card id="manage" title="Manage">
          <div class="button-row">
            {h.status === 'paused' ? (
              <PostForm action={`/heartbeats/${h.id}/resume`} csrf={csrf} submit="Resume" />
            ) : (
              <PostForm action={`/heartbeats/${h.id}/pause`} csrf={csrf} submit="Pause" />
            )}
            <PostForm action={`/heartbeats/${h.id}/delete`} csrf={csrf} button="danger" submit="Delete check" confirm={{ question: `Delete the check “${h.name}”?`, detail: 'Its pings go; its alerts stay.', action: 'Delete check' }} />
          </div>
        </Card>
      ) : null}
      <Card id="pings" title="Ping history">
        {o.pings.length === 0 ? (
          <p class="muted">No pings yet.</p>
        ) : (
          <DataTable caption="Pings, newest first" columns={['When', 'Kind', 'Exit status', 'Duration', 'Client', 'Log']}>
            {o.pings.map((p) => (
              <tr>
                <td data-label="When">
                  <Time iso={iso(p.createdAt)} />
                </td>
                <td data-label="Kind">
                  <span class={`hb-kind hb-ping-${p.kind}-text`}>{p.kind}</span>
                </td>
                <td data-label="Exit status">{p.exitStatus ?? '—'}</td>
                <td data-label="Duration">{durationText(p.durationMs)}</td>
                <td data-label="Client">{p.userAgent ?? '—'}</td>
                <td data-label="Log">{p.body ? <pre class="hb-log" tabindex={0}>{p.body}</pre> : '—'}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>,
  );
}
