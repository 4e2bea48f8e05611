import type { Clock } from '../lib/clock.js';
import { AppError } from './errors.js';

/** The feed's two layouts: the full cards, or one row per alert that opens in place. */
export const FEED_DENSITIES = ['cards', 'compact'] as const;
export type FeedDensity = (typeof FEED_DENSITIES)[number];

export interface UserSettingsRow {
  feedDensity: FeedDensity;
}

/** Where the settings are stored (src/db/shared/user-settings-rows.ts, both engines). */
export interface UserSettingsRows {
  get(userId: string): Promise<UserSettingsRow | undefined>;
  setFeedDensity(userId: string, density: FeedDensity, now: number): Promise<void>;
}

/**
 * One person's dashboard settings, kept on the server so they follow the person to every
 * browser and device (Slack and Linear do the same); no row means the defaults.
 */
export class UserSettings {
  constructor(
    private readonly rows: UserSettingsRows,
    private readonly clock: Clock,
  ) {}

  async feedDensity(userId: string): Promise<FeedDensity> {
    return (await this.rows.get(userId))?.feedDensity ?? 'cards';
  }

  async setFeedDensity(userId: string, density: string): Promise<FeedDensity> {
    if (!(FEED_DENSITIES as readonly string[]).includes(density)) {
      throw new AppError('invalid-body', `density must be one of ${FEED_DENSITIES.join(', ')}`, {
        details: [{ code: 'invalid_value', message: `density must be one of ${FEED_DENSITIES.join(', ')}`, path: ['density'] }],
      });
    }
    await this.rows.setFeedDensity(userId, density as FeedDensity, this.clock.now());
    return density as FeedDensity;
  }
}
