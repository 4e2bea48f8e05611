import type { Clock } from '../../../lib/clock.js';
import type { ChannelRecord } from '../../account-rows.js';
import type { Accounts } from '../../accounts.js';
import { AppError, notFound } from '../../errors.js';
import type { AuditLog } from '../audit.js';
import type { SsoRows } from './sso-rows.js';

export const BY_PROVIDER = 'by the identity provider';

/**
 * Private-channel access from groups (docs/sso.md): a mapping may open named private channels of its
 * workspace. Access lives where every other private-channel access lives (channel_members, through
 * Accounts); sso_managed_channel_access marks the rows the mapping made, and only those are ever removed.
 */
export class GroupChannelAccess {
  constructor(
    private readonly rows: SsoRows,
    private readonly accounts: Accounts,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** The channels a mapping names (ids or slugs of the workspace), each one private, in the given order without repeats. */
  async resolve(workspaceId: string, refs: readonly string[]): Promise<ChannelRecord[]> {
    const out = new Map<string, ChannelRecord>();
    for (const ref of refs) {
      const ch = await this.accounts.requireChannel(ref.trim(), workspaceId);
      // An id is found in any workspace: another workspace's channel is "not found" here.
      if (ch.workspaceId !== workspaceId) throw notFound(`channel ${ref.trim()}`);
      if (!ch.isPrivate) throw new AppError('invalid-body', `#${ch.slug} is public: every member of the workspace sees it already`);
      out.set(ch.id, ch);
    }
    return [...out.values()];
  }

  /**
   * Adds the access the groups give and removes the access the mapping gave that they no longer give.
   * Access given by hand is left alone, and so is the mapping's access in a workspace with no mapping
   * left (as memberships are: taking every mapping away hands the workspace back to its owners).
   */
  async sync(userId: string, email: string, groups: readonly string[], from: string | null): Promise<void> {
    const wanted = new Set(groups);
    const all = await this.rows.groupChannels();
    const mappedWorkspaces = new Set((await this.rows.mappings()).map((m) => m.workspaceId));
    const desired = new Set(all.filter((g) => wanted.has(g.group)).map((g) => g.channelId));
    const memberOf = new Set((await this.accounts.workspacesOf(userId)).map((w) => w.id));
    const now = this.clock.now();
    for (const channelId of desired) {
      const ch = await this.accounts.requireChannel(channelId);
      // A channel made public since it was mapped is open to every member: nothing to give.
      if (!ch.isPrivate || !memberOf.has(ch.workspaceId)) continue;
      if ((await this.accounts.channelMembers(ch.id)).some((m) => m.id === userId)) continue;
      await this.accounts.addChannelMember(ch.id, userId);
      await this.rows.markChannelManaged(ch.id, userId, now);
      await this.audit.record(ch.workspaceId, null, 'channel.member-added', `${email} to ${ch.name} ${BY_PROVIDER}`, from);
    }
    for (const channelId of await this.rows.managedChannels(userId)) {
      if (desired.has(channelId)) continue;
      const ch = await this.accounts.requireChannel(channelId);
      if (!mappedWorkspaces.has(ch.workspaceId)) continue;
      // The mark goes with the access row (its foreign key cascades).
      await this.accounts.removeChannelMember(ch.id, userId);
      await this.audit.record(ch.workspaceId, null, 'channel.member-removed', `${email} from ${ch.name} ${BY_PROVIDER}`, from);
    }
  }
}
