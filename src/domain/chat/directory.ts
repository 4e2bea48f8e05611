/** A Discord channel the bot sees that can be connected (text, announcement, forum or media). */
export interface DiscordChannelEntry {
  id: string;
  name: string;
  kind: 'text' | 'announcement' | 'forum' | 'media';
}

/** A Discord server the bot is in, with its connectable channels in Discord's order. */
export interface DiscordServerEntry {
  id: string;
  name: string;
  channels: DiscordChannelEntry[];
}

/** What a running gateway connection can say about the servers it sees (the bridge's client cache). */
export interface DiscordServerSource {
  servers(): DiscordServerEntry[];
}

/**
 * The servers and channels the bot sees, for forms that connect a channel by name.
 * Only the node that runs the Discord gateway (the leader in cluster mode) has a
 * source attached; elsewhere `servers()` is null and forms ask for the raw id.
 */
export class DiscordDirectory {
  #source: DiscordServerSource | null = null;

  /** Set by the runtime when the bridge starts on this node; null when it stops. */
  attach(source: DiscordServerSource | null): void {
    this.#source = source;
  }

  /** The bot's servers sorted by name, or null when this node has no gateway connection. */
  servers(): DiscordServerEntry[] | null {
    const servers = this.#source?.servers();
    return servers ? [...servers].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)) : null;
  }
}
