import type { NotifyLevel } from '../../domain/notification-preferences.js';
import { KEEP_FIELD } from '../routes/channel-privacy.js';
import type { ChannelRecord, UserRef } from '../ports.js';
import { Card, PostForm } from '../views/components.js';

/**
 * Public ↔ private, for owners and admins. Making a channel private asks who keeps access (the
 * current members of a private channel, else nobody but the person changing it, ticked beforehand
 * for everyone who sees it today: a public channel is seen by the whole workspace).
 */
export function PrivacySection(props: { channel: ChannelRecord; csrf: string; me: string; workspaceMembers: UserRef[]; error?: string }) {
  const ch = props.channel;
  if (ch.isPrivate) {
    return (
      <Card id="privacy-title" title="Privacy">
        <p>
          <strong>Private:</strong> only the members listed below see it.
        </p>
        <PostForm
          action={`/channels/${ch.id}/privacy`}
          csrf={props.csrf}
          submit="Make public"
          confirm={{ question: `Make “${ch.name}” public?`, detail: 'Every member of the workspace will see it and its alerts.', action: 'Make public' }}
        >
          <input type="hidden" name="privacy" value="public" />
        </PostForm>
      </Card>
    );
  }
  return (
    <Card id="privacy-title" title="Privacy">
      <p>
        <strong>Public:</strong> every member of the workspace sees it.
      </p>
      <PostForm action={`/channels/${ch.id}/privacy`} csrf={props.csrf} class="stack" submit="Make private">
        <input type="hidden" name="privacy" value="private" />
        <fieldset class="keep-members">
          <legend>Who keeps access</legend>
          {props.workspaceMembers.map((m) => (
            <div class="field checkbox">
              <input
                type="checkbox"
                id={`keep-${m.id}`}
                name={`${KEEP_FIELD}${m.id}`}
                checked
                disabled={m.id === props.me}
                aria-describedby={m.id === props.me ? 'keep-me-why' : undefined}
              />
              <label for={`keep-${m.id}`}>
                {m.name} <span class="muted">{m.email}</span>
              </label>
            </div>
          ))}
          <p class="hint" id="keep-me-why">
            You keep access: the one making a channel private stays in it.
          </p>
          {props.error ? <p class="error">{props.error}</p> : null}
        </fieldset>
      </PostForm>
    </Card>
  );
}

const LEVELS: { value: NotifyLevel; label: string; hint: string }[] = [
  { value: 'all', label: 'All alerts', hint: 'Every alert of this channel' },
  { value: 'important', label: 'Important only', hint: 'Warnings and errors' },
  { value: 'none', label: 'None', hint: 'No e-mail from this channel' },
];

/**
 * The viewer's e-mail level for the channel. Where no e-mail can come of it, it says so instead of
 * offering choices that do nothing: mail off on the server (and how an operator turns it on); a
 * Discord channel's messages (the chat bridge writes no notification jobs).
 */
export function NotificationsSection(props: { channel: ChannelRecord; csrf: string; level: NotifyLevel; mailEnabled: boolean; chatConnected: boolean; error?: string }) {
  const ch = props.channel;
  if (!props.mailEnabled) {
    return (
      <Card id="notify-title" title="Your e-mail notifications">
        <p>
          <strong>E-mail is off on this server</strong>, so no alert is e-mailed. An operator turns it on by setting <code>SMTP_URL</code> (and{' '}
          <code>MAIL_FROM</code>) and restarting; see the configuration guide. Until then, follow alerts here, with browser notifications, or push on your phone
          (Profile).
        </p>
      </Card>
    );
  }
  return (
    <Card id="notify-title" title="Your e-mail notifications">
      {props.chatConnected ? (
        <p class="hint" id="notify-chat">
          Messages mirrored from Discord never send e-mail: they are conversation, read here. The level below applies only to alerts posted to this channel’s
          webhook.
        </p>
      ) : null}
      <PostForm action={`/channels/${ch.id}/notifications`} csrf={props.csrf} submit="Save notification level">
        <fieldset aria-describedby={props.chatConnected ? 'notify-chat' : undefined}>
          <legend>{props.chatConnected ? 'Send me e-mail for webhook alerts' : 'Send me e-mail for'}</legend>
          {LEVELS.map((l) => (
            <div class="field radio">
              <input type="radio" id={`level-${l.value}`} name="level" value={l.value} checked={props.level === l.value} />
              <label for={`level-${l.value}`}>
                {l.label} <span class="muted">— {l.hint}</span>
              </label>
            </div>
          ))}
          {props.error ? <p class="error">{props.error}</p> : null}
        </fieldset>
      </PostForm>
    </Card>
  );
}
