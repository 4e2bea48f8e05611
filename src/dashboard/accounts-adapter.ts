import type { DashboardServices } from './dashboard-services.js';
import type { DashboardAccounts } from './ports.js';

/**
 * DashboardAccounts over the account use cases (src/domain/accounts.ts), the
 * Discord links and the alert store (the usage chart's counts and channel
 * deletion). No SQL here: every row goes through its owner.
 */
export function accountsAdapter(services: Pick<DashboardServices, 'accounts' | 'discordLinks' | 'store' | 'releaseMedia' | 'usage'>): DashboardAccounts {
  const accounts = services.accounts;
  const discord = services.discordLinks;
  return {
    findUser: (x) => accounts.findUser(x),
    findUserByVerifiedEmail: (email) => accounts.findUserByVerifiedEmail(email),
    createUser: (email, name, opts) => accounts.createUser(email, name, opts),
    renameUser: (userId, name) => accounts.renameUser(userId, name),
    changeEmail: (userId, email, opts) => accounts.changeEmail(userId, email, opts),
    workspacesOf: (userId) => accounts.workspacesOf(userId),
    listMembers: (ws) => accounts.listMembers(ws),
    addMember: async (ws, user, role) => void (await accounts.addMember(ws, user, role)),
    removeMember: async (ws, user) => void (await accounts.removeMember(ws, user)),
    visibleChannels: (workspaceId, userId) => accounts.visibleChannels(workspaceId, userId),
    createChannel: (input) => accounts.createChannel(input),
    channel: (ws, id) => accounts.channelInWorkspace(ws, id),
    updateChannel: (id, change) => accounts.updateChannel(id, change),
    deleteChannel: async (id) => {
      // The files go after the commit, if nothing else uses them.
      const keys = await services.store.channels.deleteChannelWithAlerts(id);
      accounts.channelsChanged();
      services.releaseMedia(keys);
    },
    rotateWebhook: (id) => accounts.rotateWebhook(id),
    channelMembers: (id) => accounts.channelMembers(id),
    slugTaken: (ws, slug) => accounts.slugTaken(ws, slug),
    setChannelPrivacy: (id, change) => accounts.setChannelPrivacy(id, change),
    addChannelMember: async (ch, user) => void (await accounts.addChannelMember(ch, user)),
    removeChannelMember: async (ch, user) => void (await accounts.removeChannelMember(ch, user)),
    discordStatus: async (id) => {
      const st = await discord.status(id);
      return 'discordChannelId' in st
        ? { connected: true, discordChannelId: st.discordChannelId, guildName: st.guildName, channelName: st.channelName, messages: st.messages }
        : { connected: false, messages: st.messages };
    },
    hasSigningSecret: (id) => accounts.hasSigningSecret(id),
    setSigningSecret: async (id, secret) => void (await accounts.setSigningSecret(id, secret)),
    connectDiscord: async (id, discordChannelId) => void (await discord.connect(id, discordChannelId)),
    disconnectDiscord: async (id) => void (await discord.disconnect(id)),
    createToken: (ws, user, name, opts) => accounts.createToken(ws, user, name, opts),
    listTokens: (ws) => accounts.listTokens(ws),
    revokeToken: async (id) => void (await accounts.revokeToken(id)),
    alertsPerDay: (ws, since) => services.store.reports.alertsPerDay(ws, since),
    alertsPerMonth: (ws) => services.store.reports.alertsPerMonth(ws),
    usageByMonth: async (ws) => (await services.usage.report(ws)).months,
  };
}
