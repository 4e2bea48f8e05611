import { choiceFlag, defineCommand, type Command } from '../command.js';
import { ROLES } from '../../domain/accounts.js';
import { AppError } from '../../domain/errors.js';

/**
 * Single sign-on (docs/sso.md): group → role (and private channels) mappings per workspace, and the
 * break-glass owner of OIDC_ONLY.
 */
export const ssoCommands: Command[] = [
  defineCommand({
    name: 'sso map-group',
    summary:
      "map an identity provider's group to a role in a workspace, and optionally to private channels there (--channel, repeatable; replaces the group's channels); applied at each member's next sign-in",
    flags: {
      workspace: { type: 'string', value: 'W', required: true },
      group: { type: 'string', value: 'G', required: true },
      role: { type: 'string', value: ROLES.join('|'), required: true },
      channel: { type: 'string', value: 'SLUG', multiple: true },
    },
    run: async (ctx, f) => {
      const role = choiceFlag('role', f.role, ROLES);
      const channels = await (await ctx.singleSignOn()).setMapping({ workspaceId: f.workspace, group: f.group, role }, f.channel);
      return { workspaceId: f.workspace, group: f.group.trim(), role, channels };
    },
  }),
  defineCommand({
    name: 'sso unmap-group',
    summary: 'remove a group mapping (members and private-channel access it gave go at their next sign-in)',
    flags: { workspace: { type: 'string', value: 'W', required: true }, group: { type: 'string', value: 'G', required: true } },
    run: async (ctx, f) => ({ removed: await (await ctx.singleSignOn()).removeMapping(f.workspace, f.group) }),
  }),
  defineCommand({
    name: 'sso groups',
    summary: 'list the group mappings with their private channels and member counts (of one workspace, or all)',
    flags: { workspace: { type: 'string', value: 'W' } },
    run: async (ctx, f) => {
      const sso = await ctx.singleSignOn();
      const workspaces = f.workspace ? [f.workspace] : [...new Set((await sso.rows.mappings()).map((m) => m.workspaceId))];
      return { mappings: (await Promise.all(workspaces.map((w) => sso.mappingsOf(w)))).flat() };
    },
  }),
  defineCommand({
    name: 'sso break-glass',
    summary: 'name the owner (id or e-mail) who keeps password and link sign-in with OIDC_ONLY=1; --clear for nobody',
    flags: { user: { type: 'string', value: 'U' }, clear: { type: 'boolean' } },
    run: async (ctx, f) => {
      if (!f.clear && !f.user) throw new AppError('invalid-body', 'name the owner with --user, or pass --clear');
      return { breakGlass: await (await ctx.singleSignOn()).setBreakGlass(f.clear ? null : (f.user ?? null)) };
    },
  }),
];
