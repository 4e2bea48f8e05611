import type { CheckState, PingKind, PingOutcome } from './ping.js';
import type { Schedule, StoredStatus } from './schedule.js';

/** A heartbeat check as stored. `pingUuid` is a credential: shown to its channel's people, never logged. */
export interface HeartbeatCheck extends CheckState {
  id: string;
  workspaceId: string;
  channelId: string;
  pingUuid: string;
  name: string;
  slug: string;
  schedule: Schedule;
  graceMs: number;
  status: StoredStatus;
  downAt: number | null;
  downSince: number | null;
  alertedSince: number | null;
  pingCount: number;
  createdAt: number;
}

export interface StoredPing {
  n: number;
  kind: PingKind;
  exitStatus: number | null;
  rid: string | null;
  method: string;
  userAgent: string | null;
  body: string | null;
  durationMs: number | null;
  createdAt: number;
}

/** The request a ping came with, stored beside it. */
export interface PingRequest {
  method: string;
  userAgent: string | null;
  body: string | null;
  rid: string | null;
}

/** The channel a check alerts in, as the alert ingest needs it. */
export interface HeartbeatChannel {
  id: string;
  name: string;
  slug: string;
  workspaceId: string;
  workspaceName: string;
  chatConnected: boolean;
}

/** Pings kept per check: the page's strip shows 50, its history 100. */
export const PINGS_KEPT = 100;

export interface HeartbeatRows {
  insert(check: HeartbeatCheck): Promise<void>;
  /** Name, slug, schedule and grace: `change` gets the check as locked in one transaction (a ping waits), undefined when gone. */
  edit(id: string, change: (check: HeartbeatCheck) => HeartbeatCheck): Promise<HeartbeatCheck | undefined>;
  setPaused(id: string, paused: boolean): Promise<HeartbeatCheck | undefined>;
  remove(id: string): Promise<boolean>;
  byId(id: string): Promise<HeartbeatCheck | undefined>;
  byUuid(pingUuid: string): Promise<HeartbeatCheck | undefined>;
  bySlug(pingKey: string, slug: string): Promise<HeartbeatCheck | undefined>;
  ofWorkspace(workspaceId: string): Promise<HeartbeatCheck[]>;
  ofChannel(channelId: string): Promise<HeartbeatCheck[]>;
  /**
   * One ping in one transaction: the check read (locked on PostgreSQL), `apply` decides, the check
   * row and the ping row written, old pings pruned. Undefined when the check is gone.
   */
  ping(checkId: string, request: PingRequest, now: number, apply: (state: HeartbeatCheck) => PingOutcome): Promise<{ before: HeartbeatCheck; after: HeartbeatCheck } | undefined>;
  pings(checkId: string, limit: number): Promise<StoredPing[]>;
  /** Overdue up/new checks (down_at ≤ now), at most `limit`, each moved to down once (a conditional write on its due time). */
  markOverdue(now: number, limit: number): Promise<HeartbeatCheck[]>;
  /** Checks whose alert is behind their state: down and not alerted for this episode, or up with an alert open. */
  owingAlerts(limit: number): Promise<HeartbeatCheck[]>;
  /** Records the episode the alert now shows, if the check is still as read. */
  markAlerted(id: string, alertedSince: number | null, expectDownSince: number | null): Promise<boolean>;
  /** The earliest due time of any check, or null. */
  nextDownAt(): Promise<number | null>;
  channel(channelId: string): Promise<HeartbeatChannel | undefined>;
  pingKeyOf(workspaceId: string): Promise<string | undefined>;
  /** Sets the workspace's ping key (a rotation replaces it). */
  setPingKey(workspaceId: string, pingKey: string, now: number): Promise<void>;
  slugTaken(workspaceId: string, slug: string, exceptId?: string): Promise<boolean>;
}
