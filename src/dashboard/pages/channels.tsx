import type { DiscordServerEntry } from '../../domain/chat/directory.js';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { NotifyLevel } from '../../domain/notification-preferences.js';
import type { DashEnv } from '../http/env.js';
import { isManager } from '../http/session.js';
import type { ChannelRecord, DiscordStatus, Role, UserRef } from '../ports.js';
import { DiscordSection } from './channel-discord.js';
import { SigningSecretSection } from './channel-signing.js';
import { EscalationSection, type EscalationView } from './channel-escalation.js';
import { Card, CopyBox, Field, PostForm, SelectField } from '../views/components.js';
import { ChannelHeartbeatsSection } from './channel-heartbeats.js';
import type { HeartbeatCheck } from '../../domain/heartbeats/ports.js';
import { page } from '../views/render.js';
import { flashOf } from '../http/flash.js';
import { NotificationsSection, PrivacySection } from './channel-privacy.js';
import { RoutesSection } from './channel-routes.js';
import type { RouteView } from '../../domain/routes/routes.js';

export type FieldErrors = Record<string, string | undefined>;

export function channelsPage(
  c: Context<DashEnv>,
  o: { channels: (ChannelRecord & { alertCount: number })[]; errors?: FieldErrors; values?: Record<string, string> },
  status: ContentfulStatusCode = 200,
) {
  const manager = isManager(c.get('workspace')?.role);
  const e = o.errors ?? {};
  const v = o.values ?? {};
  return page(
    c,
    'Channels',
    'channels',
    <>
      <h1>Channels</h1>
      {o.channels.length === 0 ? (
        <p class="muted">No channels yet.{manager ? ' Create the first one below.' : ''}</p>
      ) : (
        <ul class="channel-list">
          {o.channels.map((ch) => (
            <li>
              <a href={`/channels/${ch.id}`} class="channel-link">
                <span class="channel-icon" aria-hidden="true">
                  {ch.icon}
                </span>
                <span class="channel-name">{ch.name}</span>
                <span class="muted">#{ch.slug}</span>
                {ch.isPrivate ? <span class="badge">private</span> : null}
                <span class="count">
                  {ch.alertCount} {ch.alertCount === 1 ? 'alert' : 'alerts'}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {manager ? (
        <Card id="new-channel" title="Create a channel">
          <PostForm action="/channels" csrf={c.get('csrfToken')} class="grid-form" button="primary" submit="Create channel">
            <Field name="name" label="Name" value={v.name} error={e.name} maxlength={100} required />
            <Field name="slug" label="Slug" value={v.slug} error={e.slug} hint="Optional; derived from the name." maxlength={64} />
            <Field name="icon" label="Icon (emoji)" value={v.icon ?? '📢'} error={e.icon} maxlength={16} />
            <div class="field checkbox">
              <input type="checkbox" id="f-private" name="private" checked={v.private === 'on'} />
              <label for="f-private">Private: only members you add can see it</label>
            </div>
          </PostForm>
        </Card>
      ) : null}
    </>,
    status,
  );
}

export interface SettingsExtra {
  /** `servers`: the bot's servers and the channels still free to connect, or null without a gateway on this node. */
  discord?: { status: DiscordStatus; inviteUrl?: string; botRunning: boolean; servers: DiscordServerEntry[] | null };
  /** Whether the channel has a GitHub signing secret (shown to managers only). */
  signingSecretSet?: boolean;
  /** The escalation policy (managers only; null: none). */
  escalation?: EscalationView | null;
  /** The channel's heartbeat checks, with the clock their states are read at. */
  heartbeats?: { checks: HeartbeatCheck[]; now: number };
  reveal?: boolean;
  /** Whether this server sends e-mail (SMTP_URL): without it, the notification levels would do nothing. */
  mailEnabled?: boolean;
  /** The channel's outbound routes (owners and admins), and why none can be added (no secrets key). */
  routes?: { list: RouteView[]; unavailable: string | null };
  errors?: FieldErrors;
  values?: Record<string, string>;
}

export function channelSettingsPage(
  c: Context<DashEnv>,
  o: SettingsExtra & { channel: ChannelRecord; publicUrl: string; level: NotifyLevel; members: UserRef[]; workspaceMembers: (UserRef & { role: Role })[] },
  status: ContentfulStatusCode = 200,
) {
  const ch = o.channel;
  const csrf = c.get('csrfToken');
  const manager = isManager(c.get('workspace')?.role);
  const e = o.errors ?? {};
  const url = `${o.publicUrl}/api/webhook/${ch.webhookToken}`;
  const masked = `${o.publicUrl}/api/webhook/whk_${'•'.repeat(12)}`;
  const curl = `curl -X POST ${url} \\\n  -H 'Content-Type: application/json' \\\n  -d '{"title":"Deploy finished","level":"SUCCESS"}'`;
  const memberIds = new Set(o.members.map((m) => m.id));
  const addable = o.workspaceMembers.filter((m) => !memberIds.has(m.id));
  // The page's sections in order, for the jump links under the title (only those shown).
  const sections: (readonly [string, string])[] = [
    ...(manager ? ([['general-title', 'Name']] as const) : []),
    ['webhook-title', 'Webhook'],
    ...(manager && o.signingSecretSet !== undefined ? ([['signing-title', 'Signing']] as const) : []),
    ...(o.discord ? ([['discord-title', 'Discord']] as const) : []),
    ['notify-title', 'E-mail'],
    ...(manager && o.routes ? ([['routes-title', 'Routes']] as const) : []),
    ...(manager && o.escalation !== undefined ? ([['escalation-title', 'Escalation']] as const) : []),
    ...(o.heartbeats ? ([['heartbeats-title', 'Heartbeats']] as const) : []),
    ...(manager ? ([['privacy-title', 'Privacy'], ['delete-title', 'Delete']] as const) : []),
  ];
  return page(
    c,
    `${ch.name} settings`,
    'channels',
    <>
      <p class="breadcrumb">
        <a href="/channels">Channels</a> / {ch.name}
      </p>
      <h1>
        <span aria-hidden="true">{ch.icon}</span> {ch.name} <span class="muted">#{ch.slug}</span>
        {ch.isPrivate ? <span class="badge">private</span> : null}
      </h1>
      <p class="page-links">
        <a href={`/feed/c/${ch.slug}`}>Open the feed of {ch.name}</a>
      </p>

      <nav class="jump-nav" aria-label="Sections of this page">
        {sections.map(([id, label]) => (
          <a href={`#${id}`}>{label}</a>
        ))}
      </nav>

      {manager ? (
        <Card id="general-title" title="Name and icon">
          <PostForm action={`/channels/${ch.id}/settings`} csrf={csrf} class="grid-form" submit="Save name and icon">
            <Field name="name" label="Channel name" value={o.values?.name ?? ch.name} error={e.name} maxlength={100} required />
            <Field name="icon" label="Channel icon (emoji)" value={o.values?.icon ?? ch.icon} error={e.icon} maxlength={16} />
          </PostForm>
        </Card>
      ) : null}

      <Card id="webhook-title" title="Webhook">
        <p>Senders POST alerts to this URL. Treat it like a password.</p>
        {o.reveal || flashOf(c)?.revealWebhook ? (
          <div id="webhook-box">
            <CopyBox id="webhook-url" label="Webhook URL" value={url} copyLabel="Copy webhook URL" />
            <CopyBox id="webhook-curl" label="Send a test alert with curl" value={curl} copyLabel="Copy curl command" multiline />
          </div>
        ) : (
          <div id="webhook-box">
            <p class="masked">
              <code>{masked}</code>
            </p>
            <a class="button" href={`/channels/${ch.id}/webhook`} hx-get={`/channels/${ch.id}/webhook`} hx-select="#webhook-box" hx-target="#webhook-box" hx-swap="outerHTML">
              Reveal webhook URL
            </a>
            {manager ? null : <p class="hint">Only owners and admins can rotate it.</p>}
          </div>
        )}
        {manager ? (
          <PostForm action={`/channels/${ch.id}/rotate`} csrf={csrf} class="stack danger-zone" button="danger" submit="Rotate webhook URL">
            <h3>Rotate the webhook URL</h3>
            <div class={`field checkbox${e.confirm ? ' has-error' : ''}`}>
              <input type="checkbox" id="f-confirm" name="confirm" aria-describedby={e.confirm ? 'f-confirm-error' : undefined} />
              <label for="f-confirm">I understand the current URL stops working at once</label>
              {e.confirm ? (
                <p class="error" id="f-confirm-error">
                  {e.confirm}
                </p>
              ) : null}
            </div>
          </PostForm>
        ) : null}
      </Card>

      {manager && o.signingSecretSet !== undefined ? (
        <SigningSecretSection channelId={ch.id} channelName={ch.name} set={o.signingSecretSet} csrf={csrf} error={e.signing_secret} />
      ) : null}

      {o.discord ? (
        <DiscordSection channelId={ch.id} channelName={ch.name} status={o.discord.status} manager={manager} csrf={csrf} inviteUrl={o.discord.inviteUrl} botRunning={o.discord.botRunning} error={e.discord_channel} servers={o.discord.servers} value={o.values?.discord_channel} />
      ) : null}

      <NotificationsSection
        channel={ch}
        csrf={csrf}
        level={o.level}
        mailEnabled={o.mailEnabled ?? true}
        chatConnected={o.discord?.status.connected ?? false}
        error={e.level}
      />

      {manager && o.routes ? <RoutesSection channelId={ch.id} routes={o.routes.list} unavailable={o.routes.unavailable} csrf={csrf} /> : null}

      {manager && o.escalation !== undefined ? (
        <EscalationSection channelId={ch.id} channelName={ch.name} policy={o.escalation} members={o.workspaceMembers} csrf={csrf} errors={e} values={o.values} />
      ) : null}

      {o.heartbeats ? <ChannelHeartbeatsSection {...o.heartbeats} chatConnected={o.discord?.status.connected ?? false} /> : null}


      {manager ? <PrivacySection channel={ch} csrf={csrf} me={c.get('viewer').id} workspaceMembers={o.workspaceMembers} error={e.privacy} /> : null}

      {manager && ch.isPrivate ? (
        <Card id="members-title" title="Who can see this private channel">
          <ul class="plain">
            {o.members.map((m) => (
              <li class="row">
                <span>
                  {m.name} <span class="muted">{m.email}</span>
                </span>
                <PostForm
                  action={`/channels/${ch.id}/members`}
                  csrf={csrf}
                  button="small"
                  label={`Remove ${m.name} from ${ch.name}`}
                  submit="Remove"
                  confirm={{ question: `Remove ${m.name} from “${ch.name}”?`, detail: 'They stop seeing this private channel and its alerts at once.', action: 'Remove' }}
                >
                  <input type="hidden" name="user" value={m.id} />
                  <input type="hidden" name="action" value="remove" />
                </PostForm>
              </li>
            ))}
          </ul>
          {addable.length > 0 ? (
            <PostForm action={`/channels/${ch.id}/members`} csrf={csrf} class="inline-form" submit="Add to channel">
              <SelectField name="user" label="Workspace member" options={addable.map((m) => ({ value: m.id, label: `${m.name} (${m.email})` }))} error={e.user} />
            </PostForm>
          ) : null}
        </Card>
      ) : null}

      {manager ? (
        <Card id="delete-title" title="Delete this channel" class="danger-zone">
          <p>Its alerts and their files go too. This cannot be undone.</p>
          <PostForm action={`/channels/${ch.id}/delete`} csrf={csrf} class="inline-form" button="danger" submit="Delete channel">
            <Field name="confirm_name" label={`Type “${ch.name}” to confirm`} error={e.confirm_name} autocomplete="off" required />
          </PostForm>
        </Card>
      ) : null}
    </>,
    status,
  );
}
