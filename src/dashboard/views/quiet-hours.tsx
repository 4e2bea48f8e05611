import type { QuietField, QuietHours } from '../../domain/quiet-hours.js';
import { formatMinute, QUIET_MIN_LEVELS } from '../../domain/quiet-hours.js';
import { Card, PostForm } from './components.js';

/** What the Profile's quiet-hours card shows: the stored hours, or a refused form with its errors next to the fields. */
export interface QuietHoursView {
  current: QuietHours | null;
  errors?: Partial<Record<QuietField, string>>;
  /** The refused form's values, shown again. */
  values?: { start: string; end: string; timeZone: string; minLevel: string };
}

const ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');
const LEVEL_LABEL: Record<string, string> = { INFO: 'Info and above', WARNING: 'Warnings and errors', ERROR: 'Errors only' };

/** One labelled input (id `f-quiet-<name>`), its hint and its error tied to it for screen readers. */
function QuietInput(p: { name: QuietField; label: string; type: string; value: string; error?: string; hint?: string; list?: string }) {
  const id = `f-quiet-${p.name}`;
  const described = [p.hint ? `${id}-hint` : '', p.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${p.error ? ' has-error' : ''}`}>
      <label for={id}>{p.label}</label>
      <input id={id} name={p.name} type={p.type} value={p.value} list={p.list} required aria-invalid={p.error ? 'true' : undefined} aria-describedby={described} />
      {p.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {p.hint}
        </p>
      ) : null}
      {p.error ? (
        <p class="error" id={`${id}-error`}>
          {p.error}
        </p>
      ) : null}
    </div>
  );
}

export function QuietHoursSection(props: { quiet: QuietHoursView; csrf: string | undefined; mailEnabled: boolean }) {
  const { current, errors = {} } = props.quiet;
  const v = props.quiet.values ?? {
    start: current ? formatMinute(current.startMinute) : '22:00',
    end: current ? formatMinute(current.endMinute) : '07:00',
    timeZone: current?.timeZone ?? 'UTC',
    minLevel: current?.minLevel ?? 'ERROR',
  };
  return (
    <Card id="quiet-hours" title="Quiet hours">
      <p>
        {current ? (
          <>
            On: from <strong>{formatMinute(current.startMinute)}</strong> to <strong>{formatMinute(current.endMinute)}</strong> ({current.timeZone}), only{' '}
            {LEVEL_LABEL[current.minLevel]!.toLowerCase()} reach you.
          </>
        ) : (
          'Off: every alert notifies you as it arrives.'
        )}{' '}
        Inside the window, alerts below your level send no e-mail and no push; they come as one digest e-mail when the window ends
        {props.mailEnabled ? '' : ' (this server sends no e-mail, so there is no digest)'}.
      </p>
      <PostForm action="/profile/quiet-hours" csrf={props.csrf} class="stack" submit="Save quiet hours">
        <div class="field-row">
          <QuietInput name="start" label="From" type="time" value={v.start} error={errors.start} />
          <QuietInput name="end" label="Until" type="time" value={v.end} error={errors.end} hint="A window may cross midnight." />
        </div>
        <QuietInput name="timeZone" label="Time zone" type="text" value={v.timeZone} error={errors.timeZone} list="quiet-zones" hint="Such as Europe/Berlin or America/New_York." />
        <datalist id="quiet-zones">
          {ZONES.map((z) => (
            <option value={z} />
          ))}
        </datalist>
        <div class={`field${errors.minLevel ? ' has-error' : ''}`}>
          <label for="f-quiet-minLevel">Still notify me about</label>
          <select id="f-quiet-minLevel" name="minLevel" aria-invalid={errors.minLevel ? 'true' : undefined} aria-describedby={errors.minLevel ? 'f-quiet-minLevel-error' : undefined}>
            {[...QUIET_MIN_LEVELS].reverse().map((l) => (
              <option value={l.toLowerCase()} selected={v.minLevel.toUpperCase() === l}>
                {LEVEL_LABEL[l]}
              </option>
            ))}
          </select>
          {errors.minLevel ? (
            <p class="error" id="f-quiet-minLevel-error">
              {errors.minLevel}
            </p>
          ) : null}
        </div>
      </PostForm>
      {current ? <PostForm action="/profile/quiet-hours/clear" csrf={props.csrf} class="inline-form" submit="Turn quiet hours off" /> : null}
    </Card>
  );
}
