import type { Clock } from '../../../lib/clock.js';
import type { Accounts, Role } from '../../accounts.js';
import { AppError } from '../../errors.js';
import type { AuditLog } from '../audit.js';
import { BY_PROVIDER, GroupChannelAccess } from './group-channels.js';
import type { GroupMapping, SsoRows, SsoSessionLink } from './sso-rows.js';

/** What the provider (or the authenticating proxy) says about the person signing in. */
export interface ProvidedIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  groups: readonly string[];
}

export interface SignInPolicy {
  linkByEmail: boolean;
  allowedDomains: readonly string[];
}

export type SsoOutcome =
  | { kind: 'user'; userId: string; created: boolean; linked: boolean }
  /** An account holds the address, and nothing allows linking it automatically. */
  | { kind: 'link-needed'; email: string }
  | { kind: 'refused'; reason: 'no-email' | 'not-allowed' };

const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

/** A mapping as the owners' page and the CLI show it. */
export interface MappingView extends GroupMapping {
  channels: { id: string; slug: string; name: string }[];
  /** Members of the workspace who had the group at their last sign-in. */
  members: number;
}

export const groupsFrom = (raw: unknown): string[] =>
  Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 200).slice(0, 500) : typeof raw === 'string' && raw ? [raw] : [];

/**
 * Single sign-on's use cases (docs/sso.md): finding the account an identity belongs to (by issuer
 * and `sub`, never by e-mail alone), linking, just-in-time accounts, and memberships from groups.
 */
export class SingleSignOn {
  private readonly channelAccess: GroupChannelAccess;

  constructor(
    readonly rows: SsoRows,
    private readonly accounts: Accounts,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {
    this.channelAccess = new GroupChannelAccess(rows, accounts, audit, clock);
  }

  /** The account for a provider's identity, after the linking and creation rules. */
  async resolve(who: ProvidedIdentity, policy: SignInPolicy): Promise<SsoOutcome> {
    const known = await this.rows.identityUser(who.issuer, who.subject);
    if (known) return { kind: 'user', userId: known, created: false, linked: false };
    const email = who.email?.trim();
    if (!email || !email.includes('@')) return { kind: 'refused', reason: 'no-email' };
    const holder = await this.accounts.findUserByVerifiedEmail(email);
    if (holder) {
      // Both sides must vouch for the address: the provider (email_verified) and this service (verified here).
      if (!(policy.linkByEmail && who.emailVerified)) return { kind: 'link-needed', email };
      if (!(await this.rows.linkIdentity(who.issuer, who.subject, holder.id, this.clock.now()))) return { kind: 'link-needed', email };
      return { kind: 'user', userId: holder.id, created: false, linked: true };
    }
    const domain = email.split('@').pop()!.toLowerCase();
    const mapped = (await this.desiredRoles(who.groups)).size > 0;
    if (!policy.allowedDomains.includes(domain) && !mapped) return { kind: 'refused', reason: 'not-allowed' };
    let user: { id: string };
    try {
      // Verified here only when the provider says so: an unverified address reserves nothing.
      user = await this.accounts.createUser(email, who.name, { verified: who.emailVerified });
    } catch (err) {
      if (err instanceof AppError && err.code === 'email-taken') return { kind: 'link-needed', email };
      throw err;
    }
    await this.rows.linkIdentity(who.issuer, who.subject, user.id, this.clock.now());
    return { kind: 'user', userId: user.id, created: true, linked: false };
  }

  /** Links a signed-in user's account to an identity; false when the identity belongs to someone else. */
  async link(userId: string, issuer: string, subject: string): Promise<boolean> {
    const owner = await this.rows.identityUser(issuer, subject);
    if (owner) return owner === userId;
    return await this.rows.linkIdentity(issuer, subject, userId, this.clock.now());
  }

  /** The highest mapped role per workspace for these groups. */
  private async desiredRoles(groups: readonly string[]): Promise<Map<string, Role>> {
    const wanted = new Set(groups);
    const out = new Map<string, Role>();
    for (const m of await this.rows.mappings()) {
      if (!wanted.has(m.group)) continue;
      const had = out.get(m.workspaceId);
      if (!had || RANK[m.role] > RANK[had]) out.set(m.workspaceId, m.role);
    }
    return out;
  }

  /**
   * Makes the memberships the mapping manages match the groups: added, changed or removed, then the
   * private-channel access it manages. Hand-added memberships and access are left alone, and a
   * workspace's last owner is never removed or demoted.
   */
  async syncGroups(userId: string, groups: readonly string[], from: string | null): Promise<void> {
    const desired = await this.desiredRoles(groups);
    const mappedWorkspaces = new Set((await this.rows.mappings()).map((m) => m.workspaceId));
    const managed = new Set(await this.rows.managedWorkspaces(userId));
    const current = new Map((await this.accounts.workspacesOf(userId)).map((w) => [w.id, w.role]));
    const user = await this.accounts.requireUser(userId);
    const now = this.clock.now();
    for (const [ws, role] of desired) {
      const had = current.get(ws);
      if (!had) {
        await this.accounts.addMember(ws, userId, role);
        await this.rows.markManaged(ws, userId, now);
        await this.audit.record(ws, null, 'member.added', `${user.email} as ${role} ${BY_PROVIDER}`, from);
      } else if (managed.has(ws) && had !== role) {
        if (had === 'owner' && (await this.isLastOwner(ws))) continue;
        await this.accounts.addMember(ws, userId, role);
        await this.audit.record(ws, null, 'member.role-changed', `${user.email}: ${had} → ${role} ${BY_PROVIDER}`, from);
      }
    }
    for (const ws of managed) {
      if (desired.has(ws) || !mappedWorkspaces.has(ws)) continue;
      const had = current.get(ws);
      if (!had) {
        await this.rows.unmarkManaged(ws, userId);
        continue;
      }
      if (had === 'owner' && (await this.isLastOwner(ws))) continue;
      // The existing removal: tokens stop at once, private-channel memberships there go too.
      await this.accounts.removeMember(ws, userId);
      await this.rows.unmarkManaged(ws, userId);
      await this.audit.record(ws, null, 'member.removed', `${user.email} ${BY_PROVIDER}`, from);
    }
    await this.channelAccess.sync(userId, user.email, groups, from);
    const wanted = new Set(groups);
    await this.rows.setMemberGroups(userId, (await this.rows.mappings()).filter((m) => wanted.has(m.group)));
  }

  private async isLastOwner(workspaceId: string): Promise<boolean> {
    return (await this.accounts.listMembers(workspaceId)).filter((m) => m.role === 'owner').length <= 1;
  }

  /** Sets a group's role in a workspace and the private channels it opens there (replacing those it opened before). */
  async setMapping(m: GroupMapping, channels: readonly string[] = []): Promise<MappingView['channels']> {
    await this.accounts.requireWorkspace(m.workspaceId);
    const group = m.group.trim();
    if (!group || group.length > 200) throw new AppError('invalid-body', 'a group name is 1 to 200 characters');
    const opened = await this.channelAccess.resolve(m.workspaceId, channels);
    await this.rows.setMapping({ ...m, group }, opened.map((ch) => ch.id), this.clock.now());
    return opened.map((ch) => ({ id: ch.id, slug: ch.slug, name: ch.name }));
  }

  /** Takes a mapping away; what it gave goes at each member's next sign-in. False when there was none. */
  async removeMapping(workspaceId: string, group: string): Promise<boolean> {
    return (await this.rows.deleteMapping(workspaceId, group)) > 0;
  }

  /** The channels a mapping of the workspace may open: its private ones (a public one is open to every member already). */
  async mappableChannels(workspaceId: string): Promise<MappingView['channels']> {
    return (await this.accounts.privateChannels(workspaceId)).map((ch) => ({ id: ch.id, slug: ch.slug, name: ch.name }));
  }

  /** A workspace's mappings with their channels and how many members had each group at their last sign-in. */
  async mappingsOf(workspaceId: string): Promise<MappingView[]> {
    const [mappings, opened, counts] = await Promise.all([this.rows.mappings(workspaceId), this.rows.groupChannels(workspaceId), this.rows.memberCounts(workspaceId)]);
    const channels = new Map<string, MappingView['channels'][number]>();
    for (const id of new Set(opened.map((g) => g.channelId))) {
      const ch = await this.accounts.requireChannel(id);
      channels.set(id, { id: ch.id, slug: ch.slug, name: ch.name });
    }
    return mappings.map((m) => ({
      ...m,
      channels: opened.filter((g) => g.group === m.group).map((g) => channels.get(g.channelId)!),
      members: counts.get(m.group) ?? 0,
    }));
  }

  recordSession(link: SsoSessionLink): Promise<void> {
    return this.rows.recordSession(link);
  }

  /** Back-channel logout: the sessions the provider's session (or the whole user) had here end, on every node. */
  endProviderSessions(issuer: string, subject: string | undefined, sid: string | undefined): Promise<number> {
    return this.rows.endSessions(issuer, subject, sid);
  }

  async isBreakGlass(userId: string | undefined): Promise<boolean> {
    return userId !== undefined && (await this.rows.breakGlassUser()) === userId;
  }

  async setBreakGlass(userIdOrEmail: string | null): Promise<string | null> {
    const user = userIdOrEmail ? await this.accounts.requireUser(userIdOrEmail) : null;
    if (user && !(await this.accounts.workspacesOf(user.id)).some((w) => w.role === 'owner')) {
      throw new AppError('invalid-body', `${user.email} owns no workspace: the break-glass account must be an owner`);
    }
    await this.rows.setBreakGlass(user?.id ?? null, this.clock.now());
    return user?.id ?? null;
  }
}
