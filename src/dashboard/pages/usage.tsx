import type { Context } from 'hono';
import type { DashEnv } from '../http/env.js';
import { page } from '../views/render.js';

interface ChartInput {
  days: string[];
  channels: { id: string; name: string }[];
  rows: { day: string; channelId: string; count: number }[];
}

const W = 720;
const H = 220;
const PAD = { left: 8, right: 8, top: 10, bottom: 4 };
/** Colours live in the stylesheet (.series-N), so both themes and the CSP stay simple. */
const SERIES = 8;

/** Stacked bars of alerts per day per channel, drawn on the server: no chart library, no script. */
export function AlertsChart(props: ChartInput) {
  const byDay = new Map<string, Map<string, number>>();
  for (const r of props.rows) {
    const m = byDay.get(r.day) ?? new Map<string, number>();
    m.set(r.channelId, r.count);
    byDay.set(r.day, m);
  }
  const totals = props.days.map((d) => [...(byDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / props.days.length;
  const barW = Math.max(2, slot * 0.7);
  const total = totals.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="none">
        <title id="chart-title">Alerts per day, last {props.days.length} days</title>
        <desc id="chart-desc">
          {total} alerts in all, at most {max} on one day.
        </desc>
        <line class="axis" x1={PAD.left} y1={PAD.top + plotH} x2={W - PAD.right} y2={PAD.top + plotH} />
        {props.days.map((d, i) => {
          let y = PAD.top + plotH;
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g>
              {props.channels.map((ch, ci) => {
                const n = byDay.get(d)?.get(ch.id) ?? 0;
                if (n === 0) return null;
                const h = (n / max) * plotH;
                y -= h;
                return (
                  <rect class={`series-${ci % SERIES}`} x={x.toFixed(1)} y={y.toFixed(1)} width={barW.toFixed(1)} height={h.toFixed(1)}>
                    <title>{`${d} · ${ch.name}: ${n}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
      </svg>
      {/* Labels in HTML, not in the stretched SVG: text keeps its size and shape at phone width. */}
      <ol class="chart-days" aria-hidden="true">
        {props.days.filter((_, i) => (props.days.length - 1 - i) % 7 === 0).map((d) => (
          <li>{d.slice(5)}</li>
        ))}
      </ol>
      <p class="hint chart-scale">Tallest bar: {max} {max === 1 ? 'alert' : 'alerts'} in a day.</p>
      <figcaption>
        <ul class="legend">
          {props.channels.map((ch, ci) => (
            <li>
              <span class={`swatch series-${ci % SERIES}`} aria-hidden="true"></span>
              {ch.name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** `workspace`: the whole workspace's billable counter, shown as alerts (owners, admins); `visible`: alerts of the channels the viewer can see. */
export type UsageScope = 'workspace' | 'visible';

export function usagePage(c: Context<DashEnv>, o: ChartInput & { months: { month: string; events: number }[]; thisMonth: number; scope: UsageScope }) {
  const unit = o.thisMonth === 1 ? 'alert' : 'alerts';
  return page(
    c,
    'Usage',
    'usage',
    <>
      <h1>Usage</h1>
      <section class="card">
        <h2>This month</h2>
        <p class="big-number">
          {o.thisMonth} <span class="muted">{unit}</span>
        </p>
        {o.scope === 'workspace' ? (
          <p class="hint">Each alert and each workflow run counts once: the same counter the API and the CLI's usage report call billable events.</p>
        ) : (
          <p class="hint">Alerts kept in the channels you can see. Owners and admins see the whole workspace’s alerts.</p>
        )}
      </section>
      <section class="card" aria-labelledby="chart-h">
        <h2 id="chart-h">Alerts per day and channel</h2>
        <AlertsChart days={o.days} channels={o.channels} rows={o.rows} />
      </section>
      <section class="card">
        <h2>Per month</h2>
        {o.months.length === 0 ? (
          <p class="muted">No alerts yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col" class="num">
                  Alerts
                </th>
              </tr>
            </thead>
            <tbody>
              {o.months.map((m) => (
                <tr>
                  <td>{m.month}</td>
                  <td class="num">{m.events}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>,
  );
}
