import type { Child } from 'hono/jsx';

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
