import type { DiscordServerEntry } from '../../domain/chat/directory.js';
import type { DiscordStatus } from '../ports.js';
import { Card, confirmAttributes, Field, PostForm } from '../views/components.js';
import { Csrf } from '../views/layout.js';

/**
 * The bot's invite URL, from its token: a bot token's first segment is the
 * base64 of the bot's user id, which is its application id. Permissions 66560
 * = View Channels + Read Message History (all the bridge needs).
 */
export function botInviteUrl(discordToken: string | undefined): string | undefined {
  const first = discordToken?.split('.')[0];
  if (!first) return undefined;
  const id = Buffer.from(first, 'base64').toString('utf8');
  return /^\d{17,20}$/.test(id) ? `https://discord.com/oauth2/authorize?client_id=${id}&scope=bot&permissions=66560` : undefined;
}

export function DiscordSection(props: { channelId: string; channelName: string; status: DiscordStatus; manager: boolean; csrf: string; inviteUrl?: string; botRunning: boolean; error?: string; servers: DiscordServerEntry[] | null; value?: string }) {
  const st = props.status;
  return (
    <Card id="discord-title" title="Discord connection">
      {st.connected ? (
        <>
          <p>
            Mirrors Discord channel{' '}
            <strong>{st.channelName ? `#${st.channelName}` : st.discordChannelId}</strong>
            {st.guildName ? ` on ${st.guildName}` : ''} ({st.messages} {st.messages === 1 ? 'message' : 'messages'} stored).
            {st.channelName ? '' : ' Names appear once the bot has seen the channel.'}
          </p>
          {props.manager ? (
            <form
              method="post"
              action={`/channels/${props.channelId}/discord/disconnect`}
              {...confirmAttributes({
                question: `Disconnect “${props.channelName}” from Discord${st.channelName ? ` #${st.channelName}` : ''}?`,
                detail: 'New Discord messages stop arriving. Stored messages stay readable.',
                action: 'Disconnect',
              })}
            >
              <Csrf token={props.csrf} />
              <button type="submit" class="button danger">
                Disconnect from Discord
              </button>
              <p class="hint">Stored messages stay readable.</p>
            </form>
          ) : null}
        </>
      ) : (
        <>
          <p class="muted">Not connected.{props.botRunning ? '' : ' The Discord bridge runs when DISCORD_TOKEN is set.'}</p>
          {props.manager ? <ConnectForm channelId={props.channelId} csrf={props.csrf} servers={props.servers} botRunning={props.botRunning} error={props.error} value={props.value} /> : null}
        </>
      )}
      {props.manager && props.inviteUrl ? (
        <p>
          <a href={props.inviteUrl} rel="noopener noreferrer" target="_blank">
            Invite the bot to a Discord server (opens Discord)
          </a>
        </p>
      ) : null}
    </Card>
  );
}

const KIND_WORDS: Record<DiscordServerEntry['channels'][number]['kind'], string> = { text: '', announcement: ' (announcements)', forum: ' (forum)', media: ' (media)' };

/**
 * Connect by name: the servers the bot is in, each an option group of its channels, from the gateway's
 * cache on the node that runs it. The raw id stays as a fallback (a channel the cache does not hold yet,
 * or a node without the gateway, where the list is replaced by a note).
 */
function ConnectForm(props: { channelId: string; csrf: string; servers: DiscordServerEntry[] | null; botRunning: boolean; error?: string; value?: string }) {
  const servers = props.servers?.filter((s) => s.channels.length > 0) ?? null;
  const idHint = 'In Discord: right-click the channel, Copy Channel ID (Developer Mode on).';
  if (!servers || servers.length === 0) {
    const why = !props.botRunning
      ? null
      : servers
        ? 'The bot sees no channel that can be connected: invite it to a server below, or paste a channel id.'
        : 'Channel names are listed where the bot is connected to Discord (in a cluster, on the node that runs the bridge); paste the channel id here.';
    return (
      <>
        {why ? <p class="hint">{why}</p> : null}
        <PostForm action={`/channels/${props.channelId}/discord`} csrf={props.csrf} class="inline-form" submit="Connect to Discord">
          <Field name="discord_channel" label="Discord channel id" value={props.value} error={props.error} hint={idHint} maxlength={20} autocomplete="off" required />
        </PostForm>
      </>
    );
  }
  const chosen = props.value ?? '';
  const listed = servers.some((s) => s.channels.some((c) => c.id === chosen));
  return (
    <PostForm action={`/channels/${props.channelId}/discord`} csrf={props.csrf} class="discord-connect" submit="Connect to Discord">
      <div class={`field${props.error ? ' has-error' : ''}`}>
        <label for="f-discord_channel">Discord channel</label>
        <select id="f-discord_channel" name="discord_channel" aria-invalid={props.error ? 'true' : undefined} aria-describedby={props.error ? 'f-discord_channel-error' : 'f-discord_channel-hint'}>
          <option value="">Choose a channel…</option>
          {servers.map((s) => (
            <optgroup label={s.name}>
              {s.channels.map((c) => (
                <option value={c.id} selected={c.id === chosen}>
                  {/* The server again: a closed list shows the option alone, and two servers may both have #general. */}
                  {`#${c.name}${KIND_WORDS[c.kind]} · ${s.name}`}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
        <p class="hint" id="f-discord_channel-hint">
          Grouped by server: every server the bot is in. Channels already connected elsewhere are not listed.
        </p>
        {props.error ? (
          <p class="error" id="f-discord_channel-error">
            {props.error}
          </p>
        ) : null}
      </div>
      <details class="discord-id-fallback" open={Boolean(chosen && !listed)}>
        <summary>Not in the list? Use the channel id</summary>
        <Field name="discord_channel_id" label="Discord channel id" value={chosen && !listed ? chosen : ''} hint={`${idHint} Used instead of the list when filled.`} maxlength={20} autocomplete="off" />
      </details>
    </PostForm>
  );
}
