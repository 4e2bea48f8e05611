import type { GroupChannel, GroupMapping, SsoRows, SsoSessionLink } from '../../domain/auth/sso/sso-rows.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

// Single sign-on rows, on either engine (docs/sso.md). Sessions stay in `sessions`: deleting a row
// here-through ends a session on every node at its next request.

const IDENTITY_USER = statement<{ issuer: string; subject: string }, { userId: string }>(
  'SELECT user_id AS "userId" FROM oidc_identities WHERE issuer = :issuer AND subject = :subject',
);
const IDENTITIES_OF = statement<{ userId: string }, { issuer: string; subject: string }>(
  'SELECT issuer, subject FROM oidc_identities WHERE user_id = :userId ORDER BY issuer',
);
const LINK_IDENTITY = statement<{ issuer: string; subject: string; userId: string; now: number }>(
  'INSERT INTO oidc_identities (issuer, subject, user_id, created_at) VALUES (:issuer, :subject, :userId, :now) ON CONFLICT DO NOTHING',
);
const UNLINK_IDENTITY = statement<{ userId: string; issuer: string }>('DELETE FROM oidc_identities WHERE user_id = :userId AND issuer = :issuer');
const ALL_MAPPINGS = statement<Record<string, never>, GroupMapping>(
  'SELECT workspace_id AS "workspaceId", group_name AS "group", role FROM sso_group_mappings ORDER BY workspace_id, group_name',
);
const WORKSPACE_MAPPINGS = statement<{ workspaceId: string }, GroupMapping>(
  'SELECT workspace_id AS "workspaceId", group_name AS "group", role FROM sso_group_mappings WHERE workspace_id = :workspaceId ORDER BY group_name',
);
const SET_MAPPING = statement<GroupMapping & { now: number }>(
  `INSERT INTO sso_group_mappings (workspace_id, group_name, role, created_at) VALUES (:workspaceId, :group, :role, :now)
   ON CONFLICT (workspace_id, group_name) DO UPDATE SET role = excluded.role`,
);
const DELETE_MAPPING = statement<{ workspaceId: string; group: string }>(
  'DELETE FROM sso_group_mappings WHERE workspace_id = :workspaceId AND group_name = :group',
);
const CLEAR_GROUP_CHANNELS = statement<{ workspaceId: string; group: string }>(
  'DELETE FROM sso_group_channels WHERE workspace_id = :workspaceId AND group_name = :group',
);
const ADD_GROUP_CHANNEL = statement<GroupChannel>(
  'INSERT INTO sso_group_channels (workspace_id, group_name, channel_id) VALUES (:workspaceId, :group, :channelId) ON CONFLICT DO NOTHING',
);
const ALL_GROUP_CHANNELS = statement<Record<string, never>, GroupChannel>(
  'SELECT workspace_id AS "workspaceId", group_name AS "group", channel_id AS "channelId" FROM sso_group_channels ORDER BY workspace_id, group_name, channel_id',
);
const WORKSPACE_GROUP_CHANNELS = statement<{ workspaceId: string }, GroupChannel>(
  'SELECT workspace_id AS "workspaceId", group_name AS "group", channel_id AS "channelId" FROM sso_group_channels WHERE workspace_id = :workspaceId ORDER BY group_name, channel_id',
);
// Counted among the workspace's members only: someone removed by hand since their last sign-in is not managed.
const MEMBER_COUNTS = statement<{ workspaceId: string }, { group: string; members: number }>(
  `SELECT g.group_name AS "group", COUNT(*) AS members FROM sso_member_groups g
   JOIN memberships m ON m.workspace_id = g.workspace_id AND m.user_id = g.user_id
   WHERE g.workspace_id = :workspaceId GROUP BY g.group_name`,
);
const CLEAR_MEMBER_GROUPS = statement<{ userId: string }>('DELETE FROM sso_member_groups WHERE user_id = :userId');
const ADD_MEMBER_GROUP = statement<{ workspaceId: string; group: string; userId: string }>(
  'INSERT INTO sso_member_groups (workspace_id, group_name, user_id) VALUES (:workspaceId, :group, :userId) ON CONFLICT DO NOTHING',
);
const MANAGED_CHANNELS = statement<{ userId: string }, { channelId: string }>(
  'SELECT channel_id AS "channelId" FROM sso_managed_channel_access WHERE user_id = :userId ORDER BY channel_id',
);
const MARK_CHANNEL_MANAGED = statement<{ channelId: string; userId: string; now: number }>(
  'INSERT INTO sso_managed_channel_access (channel_id, user_id, created_at) VALUES (:channelId, :userId, :now) ON CONFLICT DO NOTHING',
);
const MANAGED = statement<{ userId: string }, { workspaceId: string }>(
  'SELECT workspace_id AS "workspaceId" FROM sso_managed_memberships WHERE user_id = :userId',
);
const MARK_MANAGED = statement<{ workspaceId: string; userId: string; now: number }>(
  'INSERT INTO sso_managed_memberships (workspace_id, user_id, created_at) VALUES (:workspaceId, :userId, :now) ON CONFLICT DO NOTHING',
);
const UNMARK_MANAGED = statement<{ workspaceId: string; userId: string }>(
  'DELETE FROM sso_managed_memberships WHERE workspace_id = :workspaceId AND user_id = :userId',
);
const RECORD_SESSION = statement<SsoSessionLink>(
  'INSERT INTO oidc_sessions (session_hash, issuer, subject, sid, via) VALUES (:sessionHash, :issuer, :subject, :sid, :via)',
);
const SESSION_LINK = statement<{ sessionHash: string }, SsoSessionLink>(
  'SELECT session_hash AS "sessionHash", issuer, subject, sid, via FROM oidc_sessions WHERE session_hash = :sessionHash',
);
const END_BY_SID = statement<{ issuer: string; sid: string }>(
  'DELETE FROM sessions WHERE id_hash IN (SELECT session_hash FROM oidc_sessions WHERE issuer = :issuer AND sid = :sid)',
);
const END_BY_SUBJECT = statement<{ issuer: string; subject: string }>(
  'DELETE FROM sessions WHERE id_hash IN (SELECT session_hash FROM oidc_sessions WHERE issuer = :issuer AND subject = :subject)',
);
const BREAK_GLASS = statement<Record<string, never>, { userId: string }>('SELECT user_id AS "userId" FROM sso_break_glass LIMIT 1');
const CLEAR_BREAK_GLASS = statement<Record<string, never>>('DELETE FROM sso_break_glass');
const SET_BREAK_GLASS = statement<{ userId: string; now: number }>('INSERT INTO sso_break_glass (user_id, created_at) VALUES (:userId, :now)');

export class SqlSsoRows implements SsoRows {
  constructor(private readonly database: SqlExecutor) {}

  async identityUser(issuer: string, subject: string) {
    return (await this.database.get(IDENTITY_USER, { issuer, subject }))?.userId;
  }

  identitiesOf(userId: string) {
    return this.database.all(IDENTITIES_OF, { userId });
  }

  async linkIdentity(issuer: string, subject: string, userId: string, now: number) {
    return (await this.database.run(LINK_IDENTITY, { issuer, subject, userId, now })) === 1;
  }

  unlinkIdentity(userId: string, issuer: string) {
    return this.database.run(UNLINK_IDENTITY, { userId, issuer });
  }

  mappings(workspaceId?: string) {
    return workspaceId ? this.database.all(WORKSPACE_MAPPINGS, { workspaceId }) : this.database.all(ALL_MAPPINGS, {});
  }

  async setMapping(m: GroupMapping, channelIds: readonly string[], now: number) {
    const key = { workspaceId: m.workspaceId, group: m.group };
    await this.database.transaction(function* (tx) {
      yield* tx.run(SET_MAPPING, { ...key, role: m.role, now });
      yield* tx.run(CLEAR_GROUP_CHANNELS, key);
      for (const channelId of channelIds) yield* tx.run(ADD_GROUP_CHANNEL, { ...key, channelId });
    });
  }

  deleteMapping(workspaceId: string, group: string) {
    return this.database.run(DELETE_MAPPING, { workspaceId, group });
  }

  groupChannels(workspaceId?: string) {
    return workspaceId ? this.database.all(WORKSPACE_GROUP_CHANNELS, { workspaceId }) : this.database.all(ALL_GROUP_CHANNELS, {});
  }

  async memberCounts(workspaceId: string) {
    return new Map((await this.database.all(MEMBER_COUNTS, { workspaceId })).map((r) => [r.group, Number(r.members)]));
  }

  async setMemberGroups(userId: string, groups: readonly { workspaceId: string; group: string }[]) {
    await this.database.transaction(function* (tx) {
      yield* tx.run(CLEAR_MEMBER_GROUPS, { userId });
      for (const g of groups) yield* tx.run(ADD_MEMBER_GROUP, { workspaceId: g.workspaceId, group: g.group, userId });
    });
  }

  async managedChannels(userId: string) {
    return (await this.database.all(MANAGED_CHANNELS, { userId })).map((r) => r.channelId);
  }

  async markChannelManaged(channelId: string, userId: string, now: number) {
    await this.database.run(MARK_CHANNEL_MANAGED, { channelId, userId, now });
  }

  async managedWorkspaces(userId: string) {
    return (await this.database.all(MANAGED, { userId })).map((r) => r.workspaceId);
  }

  async markManaged(workspaceId: string, userId: string, now: number) {
    await this.database.run(MARK_MANAGED, { workspaceId, userId, now });
  }

  async unmarkManaged(workspaceId: string, userId: string) {
    await this.database.run(UNMARK_MANAGED, { workspaceId, userId });
  }

  async recordSession(link: SsoSessionLink) {
    await this.database.run(RECORD_SESSION, link);
  }

  sessionLink(sessionHash: string) {
    return this.database.get(SESSION_LINK, { sessionHash });
  }

  endSessions(issuer: string, subject: string | undefined, sid: string | undefined) {
    if (sid) return this.database.run(END_BY_SID, { issuer, sid });
    if (subject) return this.database.run(END_BY_SUBJECT, { issuer, subject });
    return Promise.resolve(0);
  }

  async breakGlassUser() {
    return (await this.database.get(BREAK_GLASS, {}))?.userId;
  }

  async setBreakGlass(userId: string | null, now: number) {
    await this.database.transaction(function* (tx) {
      yield* tx.run(CLEAR_BREAK_GLASS, {});
      if (userId) yield* tx.run(SET_BREAK_GLASS, { userId, now });
    });
  }
}
