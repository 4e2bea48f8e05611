import type { DiscordLinkUnitWrites, LinkNames } from '../../domain/chat/links.js';
import type { DiscordLink } from '../../domain/chat/types.js';
import { ADVANCE_MARK, SET_LINK_NAMES } from '../shared/discord-link-rows.js';
import type { SqliteExecutor } from './executor.js';

type LinkKey = Pick<DiscordLink, 'channelId' | 'discordChannelId'>;

/** The link's names and sync mark, written synchronously inside the SQLite chat ingest's group-commit units. */
export class SqliteDiscordLinkUnitWrites implements DiscordLinkUnitWrites {
  constructor(private readonly database: SqliteExecutor) {}

  setNames(link: LinkKey, names: LinkNames): boolean {
    return this.database.runNow(SET_LINK_NAMES, { channelId: link.channelId, discordChannelId: link.discordChannelId, ...names }) > 0;
  }

  advanceMark(link: LinkKey, messageId: string): boolean {
    return this.database.runNow(ADVANCE_MARK, { channelId: link.channelId, discordChannelId: link.discordChannelId, messageId }) > 0;
  }
}
