import type { Child } from 'hono/jsx';
import { Csrf } from './layout.js';

/** A labelled input with its error (from the same rule the API applies) right below it. */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
}) {
  const id = `f-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${props.error ? ' has-error' : ''}`}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        required={props.required}
        autocomplete={props.autocomplete}
        maxlength={props.maxlength}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described}
      />
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** A read-only value (a URL, a token, a curl line) with a copy button that says what it copies. */
export function CopyBox(props: { id: string; label: string; value: string; multiline?: boolean; copyLabel?: string }) {
  return (
    <div class="copy-box">
      <label for={props.id}>{props.label}</label>
      <div class="copy-row">
        {props.multiline ? (
          <textarea id={props.id} readonly rows={3} spellcheck={false}>
            {props.value}
          </textarea>
        ) : (
          <input id={props.id} type="text" readonly value={props.value} spellcheck={false} />
        )}
        <button type="button" class="button small" data-copy={props.id}>
          {props.copyLabel ?? `Copy ${props.label.toLowerCase()}`}
        </button>
      </div>
    </div>
  );
}

export function Notice(props: { kind?: 'ok' | 'warn' | 'error'; children?: Child }) {
  return (
    <div class={`notice ${props.kind ?? 'ok'}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

/** Dates as UTC text, with the machine value for a later live formatter. */
export function Time(props: { iso: string | null; empty?: string }) {
  if (!props.iso) return <span class="muted">{props.empty ?? 'never'}</span>;
  return <time datetime={props.iso}>{props.iso.slice(0, 16).replace('T', ' ')} UTC</time>;
}

/**
 * The last item of a paged list: a link to the next page (works without JS)
 * that htmx loads in its place when it scrolls into view or is clicked.
 */
export function LoadMore(props: { href: string; fragmentHref: string; label: string }) {
  return (
    <li class="feed-more">
      <a class="button load-older" href={props.href} hx-get={props.fragmentHref} hx-trigger="revealed, click" hx-target="closest li" hx-swap="outerHTML">
        {props.label}
      </a>
    </li>
  );
}

/** The header cell of a table's action buttons: named for screen readers, empty on screen. */
export function ActionsColumn() {
  return (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  );
}

/** A section card titled by its heading (the section is named by it for screen readers). */
export function Card(props: { id: string; title: Child; class?: string; children?: Child }) {
  return (
    <section class={props.class ? `card ${props.class}` : 'card'} aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/**
 * A form that POSTs to `action`: the CSRF field, its fields, then one submit
 * button (`button` adds classes such as `primary` or `danger small`; `label`
 * names it for screen readers where its text alone is ambiguous).
 */
export function PostForm(props: {
  action: string;
  csrf: string | undefined;
  class?: string;
  submit: Child;
  button?: string;
  label?: string;
  /** A destructive action: asked first in a dialog naming its object (assets/confirm.js; without script the form posts as it is). */
  confirm?: Confirmation;
  disabled?: boolean;
  children?: Child;
}) {
  return (
    <form method="post" action={props.action} class={props.class} {...confirmAttributes(props.confirm)}>
      <Csrf token={props.csrf} />
      {props.children}
      <button type="submit" class={props.button ? `button ${props.button}` : 'button'} aria-label={props.label} disabled={props.disabled}>
        {props.submit}
      </button>
    </form>
  );
}

/** The question a destructive action asks, naming its object: "Revoke token “CI deploy script”?". */
export interface Confirmation {
  question: string;
  /** What follows, in a sentence: "Scripts using it stop working at once." */
  detail?: string;
  /** The dialog's button; the form's own button text otherwise. */
  action: string;
}

export function confirmAttributes(c: Confirmation | undefined): Record<string, string> {
  if (!c) return {};
  return { 'data-confirm': c.question, 'data-confirm-action': c.action, ...(c.detail ? { 'data-confirm-detail': c.detail } : {}) };
}

/** A labelled select (id `f-<name>`, like Field) with its error below it. */
export function SelectField(props: { name: string; label: string; options: { value: string; label: string; selected?: boolean }[]; error?: string }) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name}>
        {props.options.map((o) => (
          <option value={o.value} selected={o.selected}>
            {o.label}
          </option>
        ))}
      </select>
      {props.error ? <p class="error">{props.error}</p> : null}
    </div>
  );
}

/**
 * A table in its scrolling wrapper: one header cell per column (null leaves
 * one out), an actions column when `actions` is set, and the rows as children.
 */
export function DataTable(props: { columns: (string | null)[]; actions?: boolean; caption?: string; children?: Child }) {
  return (
    // Focusable: a table that a very long value makes wider than its box scrolls inside it, and the keyboard must reach that.
    <div class="table-wrap" tabindex={0}>
      <table>
        {props.caption ? <caption class="visually-hidden">{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((name) => (name === null ? null : <th scope="col">{name}</th>))}
            {props.actions ? <ActionsColumn /> : null}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A table cell holding a date, labelled for the narrow layout where cells stack. */
export function TimeCell(props: { label: string; iso: string | null }) {
  return (
    <td data-label={props.label}>
      <Time iso={props.iso} />
    </td>
  );
}

/** A row's destructive action: one small danger button in the actions cell, named for its row. */
export function RowAction(props: {
  action: string;
  csrf: string | undefined;
  label: string;
  confirm?: Confirmation;
  /** Hidden fields naming the row, where its key does not fit in a path (a group name may hold any character). */
  hidden?: Record<string, string>;
  children?: Child;
}) {
  return (
    <td class="actions">
      <PostForm action={props.action} csrf={props.csrf} button="danger small" label={props.label} submit={props.children} confirm={props.confirm}>
        {Object.entries(props.hidden ?? {}).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
      </PostForm>
    </td>
  );
}
