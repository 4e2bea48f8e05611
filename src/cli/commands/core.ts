import { UsageError, type Command } from '../command.js';
import { ROLES, type Role } from '../../domain/accounts.js';

const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r);

/** Accounts, channels, tokens and usage. */
export const coreCommands: Command[] = [
  {
    name: 'workspace create',
    usage: '--name N',
    summary: 'create a workspace',
    run: (s, f) => s.accounts.createWorkspace(f.require('name')),
  },
  {
    name: 'user create',
    usage: '--email E [--name N]',
    summary: 'create a user',
    run: (s, f) => s.accounts.createUser(f.require('email'), f.get('name')),
  },
  {
    name: 'member add',
    usage: `--workspace W --user U [--role ${ROLES.join('|')}]`,
    summary: 'add a user (id or e-mail) to a workspace',
    run: (s, f) => {
      const role = f.get('role') ?? 'member';
      if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      return s.accounts.addMember(f.require('workspace'), f.require('user'), role);
    },
  },
  {
    name: 'member remove',
    usage: '--workspace W --user U',
    summary: 'remove a user from a workspace (their tokens stop working)',
    run: (s, f) => s.accounts.removeMember(f.require('workspace'), f.require('user')),
  },
  {
    name: 'member list',
    usage: '--workspace W',
    summary: 'list the members of a workspace',
    run: (s, f) => ({ workspaceId: f.require('workspace'), members: s.accounts.listMembers(f.require('workspace')) }),
  },
  {
    name: 'channel create',
    usage: '--workspace W --name N [--slug S] [--icon EMOJI] [--private]',
    summary: 'create a channel and print its webhook token',
    run: (s, f) => {
      const { id, name, slug, icon, isPrivate, webhookToken } = s.accounts.createChannel({
        workspaceId: f.require('workspace'),
        name: f.require('name'),
        slug: f.get('slug'),
        icon: f.get('icon'),
        isPrivate: f.has('private') && f.get('private') !== 'false',
      });
      return { id, name, slug, icon, isPrivate, webhookToken };
    },
  },
  {
    name: 'channel add-member',
    usage: '--channel C --user U',
    summary: 'give a user access to a private channel',
    run: (s, f) => s.accounts.addChannelMember(f.require('channel'), f.require('user')),
  },
  {
    name: 'channel remove-member',
    usage: '--channel C --user U',
    summary: "remove a user's explicit channel membership",
    run: (s, f) => s.accounts.removeChannelMember(f.require('channel'), f.require('user')),
  },
  {
    name: 'channel rotate-webhook',
    usage: '--channel C',
    summary: 'issue a new webhook token (the old one stops working at once)',
    run: (s, f) => s.accounts.rotateWebhook(f.require('channel')),
  },
  {
    name: 'token create',
    usage: '--workspace W --user U [--name L]',
    summary: 'create an API token (shown only this once)',
    run: (s, f) => {
      const t = s.accounts.createToken(f.require('workspace'), f.require('user'), f.get('name'));
      return { id: t.id, token: t.token };
    },
  },
  {
    name: 'token list',
    usage: '--workspace W',
    summary: 'list tokens (never the secret itself)',
    run: (s, f) => ({ workspaceId: f.require('workspace'), tokens: s.accounts.listTokens(f.require('workspace')) }),
  },
  {
    name: 'token revoke',
    usage: '--id T',
    summary: 'revoke a token',
    run: (s, f) => s.accounts.revokeToken(f.require('id')),
  },
  {
    name: 'usage',
    usage: '--workspace W',
    summary: 'billable events per month (one per alert, one per workflow run)',
    run: (s, f) => s.usage.report(f.require('workspace')),
  },
];
