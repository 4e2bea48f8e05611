import { AppError } from '../domain/errors.js';
import type { Services } from '../services.js';
import type { ChannelRecord, DashboardAccounts, Role, UserRef } from './ports.js';

const NAME_MAX = 100;

/**
 * DashboardAccounts over today's Accounts/Usage services. The few reads and
 * writes Accounts has no method for (lists by visibility, rename, delete) are
 * small SQL statements here, in one place, so the lead can move them into the
 * account use cases at merge time. Nothing here touches the alert tables: the
 * usage chart's counts and channel deletion go through the alert store.
 */
export function accountsAdapter(s: Services): DashboardAccounts {
  const a = s.accounts;
  const db = s.db.sqlite;
  type ChannelRow = Omit<ChannelRecord, 'isPrivate'> & { isPrivate: number };
  const q = {
    workspacesOf: db.prepare<[string], { id: string; name: string; role: Role }>(
      `SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? ORDER BY m.created_at, w.id`,
    ),
    visible: db.prepare<[{ workspaceId: string; userId: string }], ChannelRow & { alertCount: number }>(
      `SELECT c.id, c.workspace_id AS workspaceId, c.name, c.slug, c.icon, c.is_private AS isPrivate, c.webhook_token AS webhookToken,
              coalesce((SELECT st.alert_count FROM channel_stats st WHERE st.channel_id = c.id), 0) AS alertCount
       FROM channels c WHERE c.workspace_id = @workspaceId
         AND (c.is_private = 0 OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = @userId))
       ORDER BY c.created_at, c.id`,
    ),
    channel: db.prepare<[string, string], ChannelRow>(
      `SELECT id, workspace_id AS workspaceId, name, slug, icon, is_private AS isPrivate, webhook_token AS webhookToken
       FROM channels WHERE id = ? AND workspace_id = ?`,
    ),
    changeEmail: db.prepare('UPDATE users SET email = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower(?) AND id <> ?)'),
    renameUser: db.prepare('UPDATE users SET name = ? WHERE id = ?'),
    rename: db.prepare('UPDATE channels SET name = coalesce(?, name), icon = coalesce(?, icon) WHERE id = ?'),
    channelMembers: db.prepare<[string], UserRef>(
      'SELECT u.id, u.email, u.name FROM channel_members cm JOIN users u ON u.id = cm.user_id WHERE cm.channel_id = ? ORDER BY cm.created_at',
    ),
  };
  const discord = s.discordLinks;
  const toChannel = (r: ChannelRow | undefined) =>
    r ? { ...r, isPrivate: Boolean(r.isPrivate) } : undefined;
  return {
    findUser: (x) => a.findUser(x),
    createUser: (email, name) => a.createUser(email, name),
    renameUser: (userId, name) => void q.renameUser.run(name, userId),
    changeEmail: (userId, email) => q.changeEmail.run(email, userId, email, userId).changes === 1,
    workspacesOf: (userId) => q.workspacesOf.all(userId),
    listMembers: (ws) => a.listMembers(ws),
    addMember: (ws, user, role) => void a.addMember(ws, user, role),
    removeMember: (ws, user) => void a.removeMember(ws, user),
    visibleChannels: (workspaceId, userId) =>
      q.visible.all({ workspaceId, userId }).map((r) => ({
        ...r,
        isPrivate: Boolean(r.isPrivate),
      })),
    createChannel: (input) => a.createChannel(input),
    channel: (ws, id) => toChannel(q.channel.get(id, ws)),
    updateChannel: (id, change) => {
      const name = change.name?.trim();
      if (name !== undefined && (name.length === 0 || name.length > NAME_MAX)) {
        throw new AppError('invalid-body', `channel name must be 1 to ${NAME_MAX} characters`);
      }
      q.rename.run(name ?? null, change.icon ?? null, id);
    },
    deleteChannel: async (id) => {
      // The files go after the commit, if nothing else uses them.
      const keys = await s.store.channels.deleteChannelWithAlerts(id);
      a.channelsChanged();
      s.releaseMedia(keys);
    },
    rotateWebhook: (id) => a.rotateWebhook(id),
    channelMembers: (id) => q.channelMembers.all(id),
    addChannelMember: (ch, user) => void a.addChannelMember(ch, user),
    removeChannelMember: (ch, user) => void a.removeChannelMember(ch, user),
    discordStatus: (id) => {
      const st = discord.status(id);
      return 'discordChannelId' in st
        ? { connected: true, discordChannelId: st.discordChannelId, guildName: st.guildName, channelName: st.channelName, messages: st.messages }
        : { connected: false, messages: st.messages };
    },
    connectDiscord: (id, discordChannelId) => void discord.connect(id, discordChannelId),
    disconnectDiscord: (id) => void discord.disconnect(id),
    createToken: (ws, user, name) => a.createToken(ws, user, name),
    listTokens: (ws) => a.listTokens(ws),
    revokeToken: (id) => void a.revokeToken(id),
    alertsPerDay: (ws, since) => s.store.reports.alertsPerDay(ws, since),
    usageByMonth: (ws) => s.usage.report(ws).months,
  };
}
