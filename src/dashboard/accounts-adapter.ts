import type { Services } from '../services.js';
import type { DashboardAccounts } from './ports.js';

/**
 * DashboardAccounts over the account use cases (src/domain/accounts.ts), the
 * Discord links and the alert store (the usage chart's counts and channel
 * deletion). No SQL here: every row goes through its owner.
 */
export function accountsAdapter(s: Services): DashboardAccounts {
  const a = s.accounts;
  const discord = s.discordLinks;
  return {
    findUser: (x) => a.findUser(x),
    findUserByVerifiedEmail: (email) => a.findUserByVerifiedEmail(email),
    createUser: (email, name, opts) => a.createUser(email, name, opts),
    renameUser: (userId, name) => a.renameUser(userId, name),
    changeEmail: (userId, email, opts) => a.changeEmail(userId, email, opts),
    workspacesOf: (userId) => a.workspacesOf(userId),
    listMembers: (ws) => a.listMembers(ws),
    addMember: async (ws, user, role) => void (await a.addMember(ws, user, role)),
    removeMember: async (ws, user) => void (await a.removeMember(ws, user)),
    visibleChannels: (workspaceId, userId) => a.visibleChannels(workspaceId, userId),
    createChannel: (input) => a.createChannel(input),
    channel: (ws, id) => a.channelInWorkspace(ws, id),
    updateChannel: (id, change) => a.updateChannel(id, change),
    deleteChannel: async (id) => {
      // The files go after the commit, if nothing else uses them.
      const keys = await s.store.channels.deleteChannelWithAlerts(id);
      a.channelsChanged();
      s.releaseMedia(keys);
    },
    rotateWebhook: (id) => a.rotateWebhook(id),
    channelMembers: (id) => a.channelMembers(id),
    addChannelMember: async (ch, user) => void (await a.addChannelMember(ch, user)),
    removeChannelMember: async (ch, user) => void (await a.removeChannelMember(ch, user)),
    discordStatus: async (id) => {
      const st = await discord.status(id);
      return 'discordChannelId' in st
        ? { connected: true, discordChannelId: st.discordChannelId, guildName: st.guildName, channelName: st.channelName, messages: st.messages }
        : { connected: false, messages: st.messages };
    },
    hasSigningSecret: (id) => a.hasSigningSecret(id),
    setSigningSecret: async (id, secret) => void (await a.setSigningSecret(id, secret)),
    connectDiscord: async (id, discordChannelId) => void (await discord.connect(id, discordChannelId)),
    disconnectDiscord: async (id) => void (await discord.disconnect(id)),
    createToken: (ws, user, name) => a.createToken(ws, user, name),
    listTokens: (ws) => a.listTokens(ws),
    revokeToken: async (id) => void (await a.revokeToken(id)),
    alertsPerDay: (ws, since) => s.store.reports.alertsPerDay(ws, since),
    alertsPerMonth: (ws) => s.store.reports.alertsPerMonth(ws),
    usageByMonth: async (ws) => (await s.usage.report(ws)).months,
  };
}
