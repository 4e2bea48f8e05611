import type { Role } from '../../domain/account-rows.js';
import { Card, confirmAttributes, Field, PostForm } from '../views/components.js';
import { Csrf } from '../views/layout.js';

/** The form's field names; an error keyed by one is shown next to it. */
export const ESCALATION_FIELDS = { minLevel: 'escalation_level', after: 'escalation_after', every: 'escalation_every', times: 'escalation_times', then: 'escalation_then' } as const;
/** The checkbox of each member the last step goes to. */
export const THEN_FIELD = 'escalate_to_';

/** The channel's policy as the section shows it (`Escalations.json`), or null for none. */
export interface EscalationView {
  minLevel: string;
  after: string;
  every: string;
  times: number;
  steps: number;
  then: string[] | null;
}

const LEVELS = [
  { value: 'WARNING', label: 'Warning and error' },
  { value: 'ERROR', label: 'Error only' },
  { value: 'SUCCESS', label: 'Success, warning and error' },
  { value: 'INFO', label: 'Every level' },
];

/** "After 10m, then every 5m, 2 times in all; then the owners and admins." */
function summary(p: EscalationView): string {
  const to = p.then === null ? 'the workspace’s owners and admins' : p.then.join(', ');
  return `Open alerts at ${p.minLevel} or above are sent again to the channel after ${p.after}, then every ${p.every}, ${p.times} ${p.times === 1 ? 'time' : 'times'} in all; the last of the ${p.steps} steps goes to ${to}.`;
}

/**
 * Escalation per channel (docs/handling-alerts.md "Escalation"), for owners and admins: the level,
 * the delays and count, and who gets the last step (ticked members; none ticked: the owners and
 * admins). Saving replaces the policy; removing it stops every escalation in progress here.
 */
export function EscalationSection(props: {
  channelId: string;
  channelName: string;
  policy: EscalationView | null;
  members: { id: string; name: string; email: string; role: Role }[];
  csrf: string;
  errors: Partial<Record<string, string>>;
  values?: Record<string, string>;
}) {
  const p = props.policy;
  const v = props.values;
  const e = props.errors;
  const f = ESCALATION_FIELDS;
  const level = v?.[f.minLevel] ?? p?.minLevel ?? 'ERROR';
  const then = new Set(v ? props.members.filter((m) => v[`${THEN_FIELD}${m.id}`] === 'on').map((m) => m.email) : (p?.then ?? []));
  return (
    <Card id="escalation-title" title="Escalation">
      <p id="escalation-state">{p ? summary(p) : 'Off: an alert nobody acknowledges is not sent again.'}</p>
      <div class="stack">
      <PostForm action={`/channels/${props.channelId}/escalation`} csrf={props.csrf} class="stack" submit={p ? 'Save escalation' : 'Turn on escalation'}>
        <div class={`field${e[f.minLevel] ? ' has-error' : ''}`}>
          <label for={`f-${f.minLevel}`}>Escalate alerts at</label>
          <select id={`f-${f.minLevel}`} name={f.minLevel} aria-invalid={e[f.minLevel] ? 'true' : undefined} aria-describedby={e[f.minLevel] ? `f-${f.minLevel}-error` : undefined}>
            {LEVELS.map((l) => (
              <option value={l.value} selected={l.value === level}>
                {l.label}
              </option>
            ))}
          </select>
          {e[f.minLevel] ? (
            <p class="error" id={`f-${f.minLevel}-error`}>
              {e[f.minLevel]}
            </p>
          ) : null}
        </div>
        <div class="grid-form">
          <Field name={f.after} label="First reminder after" value={v?.[f.after] ?? p?.after ?? '10m'} error={e[f.after]} hint="30s, 10m, 2h, 1d" maxlength={10} required />
          <Field name={f.every} label="Then every" value={v?.[f.every] ?? p?.every ?? '10m'} error={e[f.every]} hint="From 30s to 30d" maxlength={10} required />
          <Field name={f.times} label="Reminders to the channel" value={v?.[f.times] ?? String(p?.times ?? 2)} error={e[f.times]} hint="1 to 10" maxlength={3} required />
        </div>
        <fieldset class="keep-members" aria-describedby="escalation-then-hint">
          <legend>Last step goes to</legend>
          {props.members.map((m) => (
            <div class="field checkbox">
              <input type="checkbox" id={`escalate-to-${m.id}`} name={`${THEN_FIELD}${m.id}`} checked={then.has(m.email)} />
              <label for={`escalate-to-${m.id}`}>
                {m.name} <span class="muted">{m.email}</span>
              </label>
            </div>
          ))}
          <p class="hint" id="escalation-then-hint">
            None ticked: every owner and admin of the workspace. People who cannot see a private channel are skipped.
          </p>
          {e[f.then] ? <p class="error">{e[f.then]}</p> : null}
        </fieldset>
      </PostForm>
      {p ? (
        <form
          method="post"
          action={`/channels/${props.channelId}/escalation/clear`}
          {...confirmAttributes({
            question: `Turn escalation off for “${props.channelName}”?`,
            detail: 'Alerts escalating now stop; nobody is reminded of open alerts here any more.',
            action: 'Turn escalation off',
          })}
        >
          <Csrf token={props.csrf} />
          <button type="submit" class="button danger">
            Turn escalation off
          </button>
        </form>
      ) : null}
      </div>
    </Card>
  );
}
