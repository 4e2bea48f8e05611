import type { Role } from '../../accounts.js';

export interface GroupMapping {
  workspaceId: string;
  group: string;
  role: Role;
}

/** A private channel a group mapping also opens. */
export interface GroupChannel {
  workspaceId: string;
  group: string;
  channelId: string;
}

/** How a dashboard session was started by single sign-on. */
export interface SsoSessionLink {
  sessionHash: string;
  issuer: string;
  subject: string;
  sid: string | null;
  via: 'oidc' | 'proxy';
}

/** The single sign-on tables (src/db/shared/sso-rows.ts). */
export interface SsoRows {
  identityUser(issuer: string, subject: string): Promise<string | undefined>;
  identitiesOf(userId: string): Promise<{ issuer: string; subject: string }[]>;
  /** False when the identity (or this user's identity at this issuer) is already linked. */
  linkIdentity(issuer: string, subject: string, userId: string, now: number): Promise<boolean>;
  unlinkIdentity(userId: string, issuer: string): Promise<number>;
  mappings(workspaceId?: string): Promise<GroupMapping[]>;
  /** Sets a mapping and replaces its private channels, in one transaction. */
  setMapping(m: GroupMapping, channelIds: readonly string[], now: number): Promise<void>;
  /** Its channels and member counts go with it. */
  deleteMapping(workspaceId: string, group: string): Promise<number>;
  groupChannels(workspaceId?: string): Promise<GroupChannel[]>;
  /** Per group of the workspace: how many of its members had the group at their last sign-in. */
  memberCounts(workspaceId: string): Promise<Map<string, number>>;
  /** Replaces the mapped groups a user had at this sign-in. */
  setMemberGroups(userId: string, groups: readonly { workspaceId: string; group: string }[]): Promise<void>;
  /** Private channels whose access the mapping gave this user (and which they still have). */
  managedChannels(userId: string): Promise<string[]>;
  markChannelManaged(channelId: string, userId: string, now: number): Promise<void>;
  managedWorkspaces(userId: string): Promise<string[]>;
  markManaged(workspaceId: string, userId: string, now: number): Promise<void>;
  unmarkManaged(workspaceId: string, userId: string): Promise<void>;
  recordSession(link: SsoSessionLink): Promise<void>;
  sessionLink(sessionHash: string): Promise<SsoSessionLink | undefined>;
  /** Deletes the dashboard sessions a provider's logout names: by `sid` when given, else every one of `subject`'s. */
  endSessions(issuer: string, subject: string | undefined, sid: string | undefined): Promise<number>;
  breakGlassUser(): Promise<string | undefined>;
  /** Replaces the break-glass owner (null: none). */
  setBreakGlass(userId: string | null, now: number): Promise<void>;
}
