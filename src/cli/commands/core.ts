import { choiceFlag, defineCommand, type Command } from '../command.js';
import { ROLES } from '../../domain/accounts.js';

/** Accounts, channels, tokens and usage: each command translates flags into one use case of Accounts or Usage. */
export const coreCommands: Command[] = [
  defineCommand({
    name: 'workspace create',
    summary: 'create a workspace',
    flags: { name: { type: 'string', value: 'N', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).createWorkspace(f.name),
  }),
  defineCommand({
    name: 'user create',
    summary: 'create a user',
    flags: { email: { type: 'string', value: 'E', required: true }, name: { type: 'string', value: 'N' } },
    run: async (ctx, f) => (await ctx.accounts()).createUser(f.email, f.name),
  }),
  defineCommand({
    name: 'user set-email',
    summary: "set a user's e-mail address (id or e-mail), verified: the operator vouches for it",
    flags: { user: { type: 'string', value: 'U', required: true }, email: { type: 'string', value: 'E', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).setVerifiedEmail(f.user, f.email),
  }),
  defineCommand({
    name: 'member add',
    summary: 'add a user (id or e-mail) to a workspace',
    flags: {
      workspace: { type: 'string', value: 'W', required: true },
      user: { type: 'string', value: 'U', required: true },
      role: { type: 'string', value: ROLES.join('|') },
    },
    run: async (ctx, f) => {
      // Checked before ctx.accounts(): a usage error never opens the database.
      const role = choiceFlag('role', f.role ?? 'member', ROLES);
      return (await ctx.accounts()).addMember(f.workspace, f.user, role);
    },
  }),
  defineCommand({
    name: 'member remove',
    summary: 'remove a user from a workspace (their tokens stop working)',
    flags: { workspace: { type: 'string', value: 'W', required: true }, user: { type: 'string', value: 'U', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).removeMember(f.workspace, f.user),
  }),
  defineCommand({
    name: 'member list',
    summary: 'list the members of a workspace',
    flags: { workspace: { type: 'string', value: 'W', required: true } },
    run: async (ctx, f) => ({ workspaceId: f.workspace, members: await (await ctx.accounts()).listMembers(f.workspace) }),
  }),
  defineCommand({
    name: 'channel create',
    summary: 'create a channel and print its webhook token',
    flags: {
      workspace: { type: 'string', value: 'W', required: true },
      name: { type: 'string', value: 'N', required: true },
      slug: { type: 'string', value: 'S' },
      icon: { type: 'string', value: 'EMOJI' },
      private: { type: 'boolean' },
    },
    run: async (ctx, f) => {
      const { id, name, slug, icon, isPrivate, webhookToken } = await (await ctx.accounts()).createChannel({ workspaceId: f.workspace, name: f.name, slug: f.slug, icon: f.icon, isPrivate: f.private });
      return { id, name, slug, icon, isPrivate, webhookToken };
    },
  }),
  defineCommand({
    name: 'channel add-member',
    summary: 'give a user access to a private channel',
    flags: { channel: { type: 'string', value: 'C', required: true }, user: { type: 'string', value: 'U', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).addChannelMember(f.channel, f.user),
  }),
  defineCommand({
    name: 'channel remove-member',
    summary: "remove a user's explicit channel membership",
    flags: { channel: { type: 'string', value: 'C', required: true }, user: { type: 'string', value: 'U', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).removeChannelMember(f.channel, f.user),
  }),
  defineCommand({
    name: 'channel rotate-webhook',
    summary: 'issue a new webhook token (the old one stops working at once)',
    flags: { channel: { type: 'string', value: 'C', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).rotateWebhook(f.channel),
  }),
  defineCommand({
    name: 'token create',
    summary: 'create an API token (shown only this once)',
    flags: {
      workspace: { type: 'string', value: 'W', required: true },
      user: { type: 'string', value: 'U', required: true },
      name: { type: 'string', value: 'L' },
      'read-only': { type: 'boolean' },
    },
    run: async (ctx, f) => {
      const t = await (await ctx.accounts()).createToken(f.workspace, f.user, f.name, { readOnly: f['read-only'] });
      return { id: t.id, token: t.token, readOnly: t.readOnly };
    },
  }),
  defineCommand({
    name: 'token list',
    summary: 'list tokens (never the secret itself)',
    flags: { workspace: { type: 'string', value: 'W', required: true } },
    run: async (ctx, f) => ({ workspaceId: f.workspace, tokens: await (await ctx.accounts()).listTokens(f.workspace) }),
  }),
  defineCommand({
    name: 'token revoke',
    summary: 'revoke a token',
    flags: { id: { type: 'string', value: 'T', required: true } },
    run: async (ctx, f) => (await ctx.accounts()).revokeToken(f.id),
  }),
  defineCommand({
    name: 'usage',
    summary: 'billable events per month (one per alert, one per workflow run)',
    flags: { workspace: { type: 'string', value: 'W', required: true } },
    run: async (ctx, f) => (await ctx.usage()).report(f.workspace),
  }),
];
