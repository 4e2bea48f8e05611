import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { Role, UserRecord } from '../account-rows.js';
import { digest, newSecret } from './secrets.js';

export type InvitationState = 'pending' | 'accepted' | 'declined' | 'withdrawn';

export interface InvitationRecord {
  id: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  /** The inviter's name, null once their account is gone. */
  inviterName: string | null;
  createdAt: number;
  expiresAt: number;
  sentByMail: boolean;
  state: InvitationState;
}

export interface NewInvitationRow {
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  invitedBy: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
}

/**
 * The invitations rows (src/db/shared/invitation-rows.ts). "Open" means
 * pending and not expired at `now`; every change of state is one statement (or one transaction),
 * so of two concurrent uses of one invitation exactly one wins, on any node.
 */
export interface InvitationRows {
  /**
   * Stores a pending invitation; when the workspace already has one pending for the address
   * (case-insensitively), that one gets the new secret, role, inviter and expiry instead.
   */
  upsertPending(row: NewInvitationRow): Promise<{ id: string; reissued: boolean }>;
  byId(id: string): Promise<InvitationRecord | undefined>;
  byTokenHash(tokenHash: string): Promise<InvitationRecord | undefined>;
  /** Pending ones of a workspace, expired included (an admin re-issues those), oldest first. */
  pendingOfWorkspace(workspaceId: string): Promise<InvitationRecord[]>;
  /** Open invitations to an address, in any workspace, oldest first. */
  openForEmail(email: string, now: number): Promise<InvitationRecord[]>;
  /** A new secret and expiry for a pending invitation of the workspace; false when it is not pending. */
  reissue(id: string, workspaceId: string, tokenHash: string, invitedBy: string, now: number, expiresAt: number): Promise<boolean>;
  /** Whether the current link went out by e-mail (only while `tokenHash` is still the current one). */
  markSentByMail(id: string, tokenHash: string): Promise<void>;
  /** Pending → withdrawn; false when it was not pending. */
  withdraw(id: string, workspaceId: string, now: number): Promise<boolean>;
  /** Open → declined, for the invitation to `email`; false otherwise. */
  decline(id: string, email: string, now: number): Promise<boolean>;
  /**
   * In one transaction: open → accepted for the invitation to `email`, and the user's membership
   * (an existing membership keeps its role). False when it is not open.
   */
  acceptForUser(id: string, email: string, userId: string, now: number): Promise<boolean>;
  /**
   * In one transaction: open → accepted for the invitation whose secret hashes to `tokenHash`, a new
   * user at the invitation's address, and the membership. 'taken' (nothing written) when an account
   * has the address; 'gone' when the invitation is not open.
   */
  acceptAsNewUser(tokenHash: string, user: { id: string; name: string }, now: number): Promise<{ status: 'accepted'; invitation: InvitationRecord } | { status: 'taken' | 'gone' }>;
}

/** Who an invitation may belong to: the holder of the verified address (Accounts.findUserByVerifiedEmail). */
export type AccountForInvitation = (email: string) => Promise<UserRecord | undefined>;

const isOpen = (inv: InvitationRecord | undefined, now: number): inv is InvitationRecord => inv !== undefined && inv.state === 'pending' && inv.expiresAt > now;

/**
 * Invitations to a workspace. The secret exists only in the link (the table holds its SHA-256) and
 * never signs anyone in to an existing account: whether an account exists for the address is
 * decided at acceptance. With no account, the link creates one; with one, the invitation waits
 * for that user to sign in as themselves and accept it (`pendingFor`).
 */
export class Invitations {
  constructor(
    private readonly rows: InvitationRows,
    private readonly accountFor: AccountForInvitation,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    readonly ttlMs: number,
  ) {}

  /** A new invitation, or the pending one to the same address re-issued (new secret, role and expiry). */
  async invite(input: { workspaceId: string; email: string; role: Role; invitedBy: string }) {
    const secret = newSecret();
    const now = this.clock.now();
    const row = { id: this.ids.next('inv'), ...input, email: input.email.trim(), tokenHash: digest(secret), createdAt: now, expiresAt: now + this.ttlMs };
    const { id, reissued } = await this.rows.upsertPending(row);
    return { invitation: (await this.rows.byId(id))!, secret, reissued };
  }

  /** A new secret (the old link stops working) and a fresh lifetime; undefined unless pending in the workspace. */
  async reissue(workspaceId: string, id: string, by: string) {
    const secret = newSecret();
    const now = this.clock.now();
    if (!(await this.rows.reissue(id, workspaceId, digest(secret), by, now, now + this.ttlMs))) return undefined;
    return { invitation: (await this.rows.byId(id))!, secret };
  }

  markSentByMail(id: string, secret: string): Promise<void> {
    return this.rows.markSentByMail(id, digest(secret));
  }

  /** The pending invitation withdrawn, or undefined when the workspace has no such pending invitation. */
  async withdraw(workspaceId: string, id: string): Promise<InvitationRecord | undefined> {
    const inv = await this.rows.byId(id);
    if (!inv || inv.workspaceId !== workspaceId) return undefined;
    return (await this.rows.withdraw(id, workspaceId, this.clock.now())) ? inv : undefined;
  }

  pendingOfWorkspace(workspaceId: string): Promise<InvitationRecord[]> {
    return this.rows.pendingOfWorkspace(workspaceId);
  }

  /**
   * What a link leads to: the open invitation and whether an account has its address now
   * ('existing-account': sign in as that account to accept), or undefined (unknown, used, withdrawn or expired).
   */
  async open(secret: string): Promise<{ invitation: InvitationRecord; account: UserRecord | undefined } | undefined> {
    const inv = secret ? await this.rows.byTokenHash(digest(secret)) : undefined;
    if (!isOpen(inv, this.clock.now())) return undefined;
    return { invitation: inv, account: await this.accountFor(inv.email) };
  }

  /** Accepting through the link with no account at the address: creates it and the membership together. */
  async acceptAsNewUser(secret: string, name: string) {
    const userId = this.ids.next('usr');
    const result = await this.rows.acceptAsNewUser(digest(secret), { id: userId, name }, this.clock.now());
    return result.status === 'accepted' ? { ...result, userId } : result;
  }

  /**
   * The open invitations a signed-in user may accept: those to an address whose account is theirs.
   * One indexed look-up when there are none (every signed-in page asks).
   */
  async pendingFor(user: { id: string; email: string }): Promise<InvitationRecord[]> {
    const open = await this.rows.openForEmail(user.email, this.clock.now());
    if (open.length === 0) return [];
    return (await this.accountFor(user.email))?.id === user.id ? open : [];
  }

  async acceptFor(user: { id: string; email: string }, id: string): Promise<InvitationRecord | undefined> {
    const inv = (await this.pendingFor(user)).find((i) => i.id === id);
    if (!inv) return undefined;
    return (await this.rows.acceptForUser(id, user.email, user.id, this.clock.now())) ? inv : undefined;
  }

  async declineFor(user: { id: string; email: string }, id: string): Promise<InvitationRecord | undefined> {
    const inv = (await this.pendingFor(user)).find((i) => i.id === id);
    if (!inv) return undefined;
    return (await this.rows.decline(id, user.email, this.clock.now())) ? inv : undefined;
  }
}
