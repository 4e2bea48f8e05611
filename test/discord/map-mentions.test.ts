import type { Message } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { mentionLookup, textOf } from '../../src/discord/map.js';

/**
 * The lookup against hand-built caches: what the bot knows from OTHER servers
 * (the client's global user/channel caches) must never name anything here.
 */
const ID = { member: '100000000000000001', mentioned: '100000000000000002', elsewhere: '100000000000000003', here: '200000000000000001', there: '200000000000000002', role: '300000000000000001', otherRole: '300000000000000002' };

function message(content: string): Message<true> {
  const users = new Map([
    [ID.member, { displayName: 'Global Member' }],
    [ID.mentioned, { displayName: 'Mentioned' }],
    [ID.elsewhere, { displayName: 'Someone Elsewhere' }],
  ]);
  return {
    content,
    guild: {
      id: 'A',
      members: { cache: new Map([[ID.member, { displayName: 'Nick Here' }]]) },
      roles: { cache: new Map([[ID.role, { name: 'oncall' }]]) },
      channels: { cache: new Map([[ID.here, { name: 'general', guildId: 'A' }]]) },
    },
    mentions: { users: new Map([[ID.mentioned, users.get(ID.mentioned)]]), members: null },
    client: {
      users: { cache: users },
      channels: { cache: new Map([[ID.here, { name: 'general', guildId: 'A' }], [ID.there, { name: 'private-elsewhere', guildId: 'B' }]]) },
      guilds: { cache: new Map() },
    },
  } as unknown as Message<true>;
}

describe('Discord mention lookup is scoped to the message server', () => {
  it('a channel, role or user known only from another server is deleted/unknown', () => {
    const m = message(`<#${ID.here}> <#${ID.there}> <@&${ID.role}> <@&${ID.otherRole}> <@${ID.member}> <@${ID.mentioned}> <@${ID.elsewhere}>`);
    expect(textOf(m)).toBe('#general #deleted-channel @oncall @deleted-role @Nick Here @Mentioned @unknown-user');
    const lookup = mentionLookup(m);
    expect(lookup.channel(ID.there)).toBeUndefined();
    expect(lookup.user(ID.elsewhere)).toBeUndefined();
  });
});
