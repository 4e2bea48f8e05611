import type { Role } from '../../accounts.js';

export interface GroupMapping {
  workspaceId: string;
  group: string;
  role: Role;
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
  setMapping(m: GroupMapping, now: number): Promise<void>;
  deleteMapping(workspaceId: string, group: string): Promise<number>;
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
