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

export function DiscordSection(props: { channelId: string; channelName: string; status: DiscordStatus; manager: boolean; csrf: string; inviteUrl?: string; botRunning: boolean; error?: string }) {
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
          {props.manager ? (
            <PostForm action={`/channels/${props.channelId}/discord`} csrf={props.csrf} class="inline-form" submit="Connect to Discord">
              <Field
                name="discord_channel"
                label="Discord channel id"
                error={props.error}
                hint="In Discord: right-click the channel, Copy Channel ID (Developer Mode on)."
                maxlength={20}
                autocomplete="off"
                required
              />
            </PostForm>
          ) : null}
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
