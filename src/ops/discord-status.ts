// Types only: discord.js (~44 MB of RSS) is loaded when DISCORD_TOKEN is set, by the bridge, which hands over its Status enum.
import type { Client, Status } from 'discord.js';
import type { ChatSync } from '../domain/chat/sync.js';

/** What the operations side reads from a running Discord bridge (a DiscordBridgeHandle fits). */
export interface DiscordBridgeView {
  client: Pick<Client, 'ws'>;
  sync: Pick<ChatSync, 'connectedLinks' | 'stateOf'>;
  statuses: typeof Status;
}

export interface DiscordStatus {
  /** discord.js' WebSocket manager status, lower-cased: `ready`, `connecting`, `reconnecting`, `resuming`, … */
  gateway: string;
  up: boolean;
  /** Connected channels by sync state: `live` (history known complete), `backfilling` (a pass runs), `behind` (waiting for a pass). */
  channels: { live: number; backfilling: number; behind: number };
  /** Live messages received and not stored yet, over all channels. */
  pendingLive: number;
}

/** A snapshot for /readyz and the metrics scrape; reads in-memory state only. */
export function discordStatus(bridge: DiscordBridgeView): DiscordStatus {
  const Status = bridge.statuses;
  // The manager's own status turns Ready once and stays so; the shards say whether the gateway is up now.
  const shards = [...bridge.client.ws.shards.values()];
  const status = shards.length === 0 ? bridge.client.ws.status : (shards.find((sh) => sh.status !== Status.Ready)?.status ?? Status.Ready);
  const channels = { live: 0, backfilling: 0, behind: 0 };
  let pendingLive = 0;
  for (const link of bridge.sync.connectedLinks) {
    const st = bridge.sync.stateOf(link.discordChannelId);
    if (!st) continue;
    if (st.backfilling) channels.backfilling++;
    else if (st.isLive) channels.live++;
    else channels.behind++;
    pendingLive += st.pendingLive;
  }
  return { gateway: (Status[status] ?? String(status)).toLowerCase(), up: status === Status.Ready, channels, pendingLive };
}
