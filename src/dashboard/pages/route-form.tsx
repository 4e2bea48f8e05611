import type { AlertLevel } from '../../domain/alert-rows.js';
import { ROUTE_EVENTS, type RouteEvent, type RouteKind, type RouteTarget } from '../../domain/routes/route-kinds.js';
import type { RouteView } from '../../domain/routes/routes.js';
import { Field } from '../views/components.js';

export type RouteFormValues = Record<string, string>;
export type RouteFormErrors = Record<string, string | undefined>;

interface TargetFieldSpec {
  name: keyof RouteTarget;
  label: string;
  /** Tokens and secrets: typed like a password, never rendered back. */
  secret?: boolean;
  optional?: boolean;
  hint?: string;
}

/** Each kind: its name, where its URL or token comes from (docs/routes.md says the same), and its target's fields. */
export const KIND_INFO: Record<RouteKind, { label: string; where: string; fields: TargetFieldSpec[] }> = {
  slack: {
    label: 'Slack',
    where: 'In your Slack app: Incoming Webhooks → Add New Webhook to Workspace, pick the channel, copy the URL.',
    fields: [{ name: 'url', label: 'Incoming webhook URL', hint: 'https://hooks.slack.com/services/…' }],
  },
  discord: {
    label: 'Discord',
    where: 'In Discord: channel settings → Integrations → Webhooks → New Webhook → Copy Webhook URL.',
    fields: [{ name: 'url', label: 'Webhook URL', hint: 'https://discord.com/api/webhooks/…' }],
  },
  teams: {
    label: 'Microsoft Teams',
    where: 'In the Teams channel: Workflows → “Post to a channel when a webhook request is received” → copy the URL.',
    fields: [{ name: 'url', label: 'Workflows webhook URL' }],
  },
  telegram: {
    label: 'Telegram',
    where: 'Talk to @BotFather: /newbot gives the token. Add the bot to the chat; its id (negative for groups) is in getUpdates.',
    fields: [
      { name: 'botToken', label: 'Bot token', secret: true, hint: '123456:ABC… from @BotFather' },
      { name: 'chatId', label: 'Chat id', hint: 'For example -1001234567890' },
      { name: 'apiUrl', label: 'Bot API URL', optional: true, hint: 'Leave empty for https://api.telegram.org' },
    ],
  },
  matrix: {
    label: 'Matrix',
    where: 'A bot account invited to the room: its access token (Element → Settings → Help & About) and the room id (!…:server).',
    fields: [
      { name: 'url', label: 'Homeserver URL', hint: 'https://matrix.example.org' },
      { name: 'accessToken', label: 'Access token', secret: true },
      { name: 'room', label: 'Room id', hint: '!abcdef:example.org' },
    ],
  },
  ntfy: {
    label: 'ntfy',
    where: 'The topic’s URL, e.g. https://ntfy.sh/my-alerts; an access token only for a protected topic.',
    fields: [
      { name: 'url', label: 'Topic URL', hint: 'SERVER/TOPIC, e.g. https://ntfy.sh/my-alerts' },
      { name: 'token', label: 'Access token', secret: true, optional: true },
    ],
  },
  webhook: {
    label: 'Signed webhook',
    where: 'Any HTTPS endpoint you run. Deliveries are signed per Standard Webhooks; verify them with a standardwebhooks library.',
    fields: [
      { name: 'url', label: 'Endpoint URL', hint: 'https://…' },
      { name: 'secret', label: 'Signing secret', secret: true, optional: true, hint: 'whsec_… (base64). Leave empty to generate one, shown once.' },
    ],
  },
};

const LEVELS: AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];
const LEVEL_WORDS: Record<AlertLevel, string> = { INFO: 'Every alert (info and up)', SUCCESS: 'Success and up', WARNING: 'Warnings and errors', ERROR: 'Errors only' };
export const EVENT_WORDS: Record<RouteEvent, string> = {
  'alert.opened': 'Opened (and reopened)',
  'alert.updated': 'Updated',
  'alert.acknowledged': 'Acknowledged',
  'alert.resolved': 'Resolved',
};
/** The form's checkbox for an event: `event_opened` for `alert.opened`. */
export const eventField = (e: RouteEvent) => `event_${e.slice('alert.'.length)}`;

/** The target a kind's fields give (empty optional ones left out, so the domain applies its default). */
export function targetFrom(kind: RouteKind, form: RouteFormValues): RouteTarget {
  const t: RouteTarget = {};
  for (const f of KIND_INFO[kind].fields) {
    const value = (form[f.name] ?? '').trim();
    if (value || !f.optional) t[f.name] = value;
  }
  return t;
}

/** The route's values as the form shows them (a refused form shows what was typed instead). */
export function formValuesOf(r: RouteView): RouteFormValues {
  const v: RouteFormValues = {
    minLevel: r.minLevel,
    source: r.source ?? '',
    fields: r.fields.map((f) => `${f.label}=${f.value}`).join('\n'),
    ratePerMinute: String(r.ratePerMinute),
  };
  for (const e of r.events) v[eventField(e)] = 'on';
  return v;
}

/** The kind's target fields; secrets start empty every time (nothing secret is rendered back). */
export function TargetFields(props: { kind: RouteKind; values: RouteFormValues; errors: RouteFormErrors }) {
  return (
    <>
      {KIND_INFO[props.kind].fields.map((f) => (
        <Field
          name={f.name}
          label={f.optional ? `${f.label} (optional)` : f.label}
          type={f.secret ? 'password' : 'text'}
          autocomplete={f.secret ? 'new-password' : 'off'}
          value={f.secret ? '' : props.values[f.name]}
          error={props.errors[f.name]}
          hint={f.hint}
          maxlength={2048}
          required={!f.optional}
        />
      ))}
    </>
  );
}

/** Minimum level, events, source, field matches and rate: what decides which alerts a route forwards. */
export function FilterFields(props: { values: RouteFormValues; errors: RouteFormErrors }) {
  const v = props.values;
  const e = props.errors;
  const level = v.minLevel || 'INFO';
  return (
    <>
      <div class={`field${e.minLevel ? ' has-error' : ''}`}>
        <label for="f-minLevel">Forward</label>
        <select id="f-minLevel" name="minLevel" aria-invalid={e.minLevel ? 'true' : undefined} aria-describedby={e.minLevel ? 'f-minLevel-error' : undefined}>
          {LEVELS.map((l) => (
            <option value={l} selected={l === level}>
              {LEVEL_WORDS[l]}
            </option>
          ))}
        </select>
        {e.minLevel ? (
          <p class="error" id="f-minLevel-error">
            {e.minLevel}
          </p>
        ) : null}
      </div>
      <fieldset class={`route-events${e.events ? ' has-error' : ''}`} aria-describedby={e.events ? 'f-events-error' : undefined}>
        <legend>When the alert is</legend>
        {ROUTE_EVENTS.map((ev) => (
          <div class="field checkbox">
            <input type="checkbox" id={`f-${eventField(ev)}`} name={eventField(ev)} checked={v[eventField(ev)] === 'on'} />
            <label for={`f-${eventField(ev)}`}>{EVENT_WORDS[ev]}</label>
          </div>
        ))}
        {e.events ? (
          <p class="error" id="f-events-error">
            {e.events}
          </p>
        ) : null}
      </fieldset>
      <Field name="source" label="Only from source (optional)" value={v.source} error={e.source} hint="The sender’s source, e.g. prometheus." maxlength={200} />
      <div class={`field${e.fields ? ' has-error' : ''}`}>
        <label for="f-fields">Only with fields (optional)</label>
        <textarea id="f-fields" name="fields" rows={2} aria-describedby={`f-fields-hint${e.fields ? ' f-fields-error' : ''}`} aria-invalid={e.fields ? 'true' : undefined}>
          {v.fields ?? ''}
        </textarea>
        <p class="hint" id="f-fields-hint">
          One label=value a line; all must match.
        </p>
        {e.fields ? (
          <p class="error" id="f-fields-error">
            {e.fields}
          </p>
        ) : null}
      </div>
      <Field name="ratePerMinute" label="At most per minute" value={v.ratePerMinute || '30'} error={e.ratePerMinute} hint="More wait their turn; none is dropped." maxlength={3} />
    </>
  );
}
