import { users, workspaces } from './accounts.js';
import { sessions } from './auth.js';
import { channelMembers, channels } from './channels.js';
import { bigint, text, table } from './define.js';

/**
 * OpenID Connect identities: a user is found by (issuer, sub), never by e-mail alone (docs/sso.md).
 * One identity per user per issuer.
 */
export const [oidcIdentities, pgOidcIdentities] = table(
  'oidc_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { primaryKey, uniqueIndex }) => [primaryKey({ columns: [t.issuer, t.subject] }), uniqueIndex('oidc_identities_user_uq').on(t.userId, t.issuer)],
);

/** Which identity-provider group gives which role in a workspace (and which private channels: sso_group_channels). */
export const [ssoGroupMappings, pgSsoGroupMappings] = table(
  'sso_group_mappings',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    groupName: text('group_name').notNull(),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.workspaceId, t.groupName] })],
);

/** The private channels a group mapping also opens; they go with their mapping or their channel. */
export const [ssoGroupChannels, pgSsoGroupChannels] = table(
  'sso_group_channels',
  {
    workspaceId: text('workspace_id').notNull(),
    groupName: text('group_name').notNull(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
  },
  (t, { foreignKey, index, primaryKey }) => [
    primaryKey({ columns: [t.workspaceId, t.groupName, t.channelId] }),
    foreignKey({ name: 'sso_group_channels_mapping_fk', columns: [t.workspaceId, t.groupName], foreignColumns: [ssoGroupMappings.workspaceId, ssoGroupMappings.groupName] }).onDelete('cascade'),
    index('sso_group_channels_channel_idx').on(t.channelId),
  ],
);

/**
 * Private-channel access the group mapping made: only this is removed at a later sign-in. It points at
 * the access row itself, so access removed by hand (or with the workspace membership) takes its mark
 * along, and access given again by hand later is never mistaken for the mapping's.
 */
export const [ssoManagedChannelAccess, pgSsoManagedChannelAccess] = table(
  'sso_managed_channel_access',
  {
    channelId: text('channel_id').notNull(),
    userId: text('user_id').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { foreignKey, index, primaryKey }) => [
    primaryKey({ columns: [t.channelId, t.userId] }),
    foreignKey({ name: 'sso_managed_channel_access_member_fk', columns: [t.channelId, t.userId], foreignColumns: [channelMembers.channelId, channelMembers.userId] }).onDelete('cascade'),
    index('sso_managed_channel_access_user_idx').on(t.userId),
  ],
);

/** The mapped groups each person had at their last sign-in: how many members each mapping manages. */
export const [ssoMemberGroups, pgSsoMemberGroups] = table(
  'sso_member_groups',
  {
    workspaceId: text('workspace_id').notNull(),
    groupName: text('group_name').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t, { foreignKey, index, primaryKey }) => [
    primaryKey({ columns: [t.workspaceId, t.groupName, t.userId] }),
    foreignKey({ name: 'sso_member_groups_mapping_fk', columns: [t.workspaceId, t.groupName], foreignColumns: [ssoGroupMappings.workspaceId, ssoGroupMappings.groupName] }).onDelete('cascade'),
    index('sso_member_groups_user_idx').on(t.userId),
  ],
);

/** Memberships the group mapping made: only these are changed or removed at the next sign-in. */
export const [ssoManagedMemberships, pgSsoManagedMemberships] = table(
  'sso_managed_memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.workspaceId, t.userId] })],
);

/** The provider's session id (`sid`) of a dashboard session started by OpenID Connect, for back-channel logout. */
export const [oidcSessions, pgOidcSessions] = table(
  'oidc_sessions',
  {
    sessionHash: text('session_hash')
      .primaryKey()
      .references(() => sessions.idHash, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    sid: text('sid'),
    /** 'oidc' or 'proxy': a proxy session ends when the header names someone else. */
    via: text('via', { enum: ['oidc', 'proxy'] }).notNull(),
  },
  (t, { index }) => [index('oidc_sessions_sub_idx').on(t.issuer, t.subject)],
);

/** The one account that may still use links and passwords with OIDC_ONLY=1 (set with the admin CLI). */
export const [ssoBreakGlass, pgSsoBreakGlass] = table('sso_break_glass', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: bigint('created_at').notNull(),
});
