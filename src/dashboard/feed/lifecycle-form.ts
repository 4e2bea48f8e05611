import type { LifecycleRequest } from '../../domain/alert-lifecycle.js';
import { snoozeUntil } from '../../domain/snooze.js';

/** The feed's lifecycle form (`action` from views/lifecycle-actions.tsx) as a request; undefined for anything else. */
export function lifecycleRequestOf(action: string | undefined, zone: string | undefined, now: number): LifecycleRequest | undefined {
  switch (action) {
    case 'acknowledge':
      return { status: 'acknowledged' };
    case 'resolve':
      return { status: 'resolved' };
    case 'reopen':
      return { status: 'open' };
    case 'unsnooze':
      return { snoozedUntil: null };
    case 'snooze:1h':
      return { snoozedUntil: snoozeUntil('1h', now, 'UTC') };
    case 'snooze:4h':
      return { snoozedUntil: snoozeUntil('4h', now, 'UTC') };
    case 'snooze:tomorrow':
      return { snoozedUntil: snoozeUntil('tomorrow', now, zone ?? 'UTC') };
    default:
      return undefined;
  }
}
