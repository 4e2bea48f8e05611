import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { silenceJson, type Silence } from '../../domain/silences.js';
import type { DashEnv } from '../http/env.js';
import { Card, DataTable, Field, PostForm, RowAction, SelectField, Time } from '../views/components.js';
import { page } from '../views/render.js';

/** What the create form holds (as posted, or prefilled from an alert). */
export type SilenceForm = Partial<Record<'channel' | 'level' | 'source' | 'titleContains' | 'fields' | 'for' | 'until' | 'weekly' | 'timeZone' | 'comment', string>>;
type FormErrors = Partial<Record<keyof SilenceForm | 'schedule', string>>;

const STATE_LABEL = { active: 'Active', pending: 'Waiting for its window', expired: 'Expired' } as const;

export function silencesPage(
  c: Context<DashEnv>,
  o: {
    silences: Silence[];
    channels: { id: string; name: string; slug: string }[];
    now: number;
    manager: boolean;
    form: SilenceForm;
    errors?: FormErrors;
    focusForm?: boolean;
  },
  status: ContentfulStatusCode = 200,
) {
  const csrf = c.get('csrfToken');
  const channelName = new Map(o.channels.map((ch) => [ch.id, `#${ch.slug}`]));
  const rows = o.silences.map((s) => ({ s, json: silenceJson(s, o.now) }));
  const current = rows.filter((r) => r.json.state !== 'expired');
  const past = rows.filter((r) => r.json.state === 'expired').slice(0, 20);
  const e = o.errors ?? {};
  const v = o.form;
  return page(
    c,
    'Silences',
    'silences',
    <>
      <h1>Silences</h1>
      <p class="lead">
        A silenced alert is stored, counted and shown as usual, but nobody is e-mailed or pushed about it. Use one for a maintenance window or a
        known problem being worked on.
      </p>
      {o.manager ? (
        <Card id="new-silence" title={o.focusForm && v.titleContains !== undefined && !o.errors ? 'Silence alerts like this one' : 'Create a silence'}>
          <PostForm action="/silences" csrf={csrf} class="grid-form" button="primary" submit="Create silence">
            <SelectField
              name="channel"
              label="Channel"
              error={e.channel}
              options={[
                { value: '', label: 'Every channel of the workspace', selected: !v.channel },
                ...o.channels.map((ch) => ({ value: ch.id, label: `#${ch.slug} (${ch.name})`, selected: v.channel === ch.id })),
              ]}
            />
            <SelectField
              name="level"
              label="Level"
              error={e.level}
              options={[
                { value: '', label: 'Any level', selected: !v.level },
                ...['INFO', 'SUCCESS', 'WARNING', 'ERROR'].map((l) => ({ value: l, label: l.charAt(0) + l.slice(1).toLowerCase(), selected: v.level === l })),
              ]}
            />
            <Field name="source" label="Source" value={v.source} error={e.source} hint="Exactly, e.g. “nightly-backup”. Empty: any." maxlength={200} />
            <Field name="titleContains" label="Title contains" value={v.titleContains} error={e.titleContains} hint="Any case. Empty: any title." maxlength={200} />
            <div class={`field${e.fields ? ' has-error' : ''}`}>
              <label for="f-fields">Fields</label>
              <textarea id="f-fields" name="fields" rows={3} spellcheck={false} aria-describedby={e.fields ? 'f-fields-hint f-fields-error' : 'f-fields-hint'}>
                {v.fields ?? ''}
              </textarea>
              <p class="hint" id="f-fields-hint">
                One <code>label=value</code> per line; all must match.
              </p>
              {e.fields ? (
                <p class="error" id="f-fields-error">
                  {e.fields}
                </p>
              ) : null}
            </div>
            <Field name="for" label="For" value={v.for} error={e.for ?? e.schedule} hint="30m, 2h, 1d… or fill in one of the next two instead." maxlength={10} />
            <Field name="until" label="Or until" value={v.until} error={e.until} hint="ISO 8601, e.g. 2026-12-24T18:00:00Z" maxlength={40} />
            <Field name="weekly" label="Or every week" value={v.weekly} error={e.weekly} hint="e.g. Sat 02:00-04:00 or Mon-Fri 22:00-06:00" maxlength={60} />
            <Field name="timeZone" label="Time zone of the weekly window" value={v.timeZone ?? 'UTC'} error={e.timeZone} hint="e.g. Europe/Berlin" maxlength={64} />
            <Field name="comment" label="Comment" value={v.comment} error={e.comment} hint="Why: shown on every alert it silences." maxlength={500} required />
          </PostForm>
        </Card>
      ) : (
        <p class="muted">Owners and admins create and expire silences.</p>
      )}
      <section aria-labelledby="current-title">
        <h2 id="current-title">Active and scheduled</h2>
        {current.length === 0 ? <p class="muted">No silences: every alert notifies as configured.</p> : <SilenceTable rows={current} {...{ channelName, csrf, manager: o.manager }} />}
      </section>
      {past.length > 0 ? (
        <section aria-labelledby="past-title">
          <h2 id="past-title">Expired</h2>
          <SilenceTable rows={past} channelName={channelName} csrf={csrf} manager={false} />
        </section>
      ) : null}
    </>,
    status,
  );
}

function SilenceTable(props: { rows: { s: Silence; json: ReturnType<typeof silenceJson> }[]; channelName: Map<string, string>; csrf: string | undefined; manager: boolean }) {
  return (
    <DataTable columns={['Comment', 'Matches', 'When', 'State']} actions={props.manager}>
      {props.rows.map(({ s, json }) => (
        <tr>
          <th scope="row">{s.comment}</th>
          <td data-label="Matches">{describeMatchers(s, props.channelName)}</td>
          <td data-label="When">
            {json.weekly ? (
              <>
                Every {json.weekly} ({json.timeZone})
              </>
            ) : (
              <>
                <Time iso={json.startsAt} /> – <Time iso={json.endsAt} />
              </>
            )}
          </td>
          <td data-label="State">
            <span class="badge">{STATE_LABEL[json.state]}</span>
          </td>
          {props.manager ? (
            <RowAction action={`/silences/${s.id}/expire`} csrf={props.csrf} label={`Expire silence ${s.comment}`}>
              Expire
            </RowAction>
          ) : null}
        </tr>
      ))}
    </DataTable>
  );
}

function describeMatchers(s: Silence, channelName: Map<string, string>): string {
  const parts = [s.channelId ? (channelName.get(s.channelId) ?? 'a channel you cannot see') : 'every channel'];
  if (s.level) parts.push(`level ${s.level}`);
  if (s.source) parts.push(`source “${s.source}”`);
  if (s.titleContains) parts.push(`title contains “${s.titleContains}”`);
  for (const f of s.fields) parts.push(`${f.label}=${f.value}`);
  return parts.join(', ');
}
