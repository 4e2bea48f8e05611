import type { AlertLevel } from '../alert-rows.js';
import type { RouteEvent, RouteKind } from './route-kinds.js';

export interface FieldMatch {
  label: string;
  value: string;
}

/** One stored route: the target sealed (src/lib/secret-box.ts), the filters in the clear. */
export interface RouteRow {
  id: string;
  channelId: string;
  kind: RouteKind;
  targetSealed: string;
  keyId: string;
  targetHint: string;
  minLevel: AlertLevel;
  events: RouteEvent[];
  source: string | null;
  fields: FieldMatch[];
  state: 'active' | 'paused';
  pausedReason: string | null;
  failingSince: number | null;
  ratePerMinute: number;
  createdAt: number;
  updatedAt: number;
}

export type RouteChange = Partial<Pick<RouteRow, 'targetSealed' | 'keyId' | 'targetHint' | 'minLevel' | 'events' | 'source' | 'fields' | 'state' | 'pausedReason' | 'failingSince' | 'ratePerMinute'>>;

/** The routes table (src/db/shared/route-rows.ts). */
export interface RouteRowStore {
  insert(row: RouteRow): Promise<void>;
  update(id: string, change: RouteChange, now: number): Promise<boolean>;
  byId(id: string): Promise<RouteRow | undefined>;
  /** Every route, or a channel's, oldest first. */
  list(channelId?: string): Promise<RouteRow[]>;
  remove(id: string): Promise<boolean>;
}
