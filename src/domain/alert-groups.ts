import type { SourceTransition } from './alert-lifecycle.js';
import type { NewStandardAlert, NotificationKind, RunState, StoredRun } from './alert-store.js';

/**
 * Store seams for the drop-in formats that update an alert in place by a key
 * of their own (issue 14): Alertmanager and Grafana groups, and GitHub's
 * workflow_job events merged into a run's steps. Kept apart from
 * alert-store.ts; the SQLite implementation is src/db/sqlite/alert-store/group-writes.ts.
 */

export type GroupStatus = 'firing' | 'resolved';

/** The last state stored for a group. */
export interface StoredGroupState {
  status: GroupStatus;
  stateFingerprint: string;
}

/** What to do with an existing group's alert, decided by the domain from the stored state. */
export type GroupUpdate =
  /** The same state again (Alertmanager's repeat_interval): nothing is written. */
  | { repeat: true }
  | {
      repeat: false;
      /** A fresh activity key makes the alert unread again for everyone; null keeps it. */
      resurfaceAs: string | null;
      notify: NotificationKind | null;
      /** A new episode (the group fires again): one more usage event. */
      countUsage: boolean;
      /** The status the group's alert moves to (resolved, or open again), by the integration. */
      lifecycle?: SourceTransition;
    };

export interface SavedGroup extends StoredRun {
  /** False for a repeat: nothing was written. */
  changed: boolean;
  notified: boolean;
  /** Media keys the alert no longer uses (replaced, or fetched for a repeat), to release after COMMIT. */
  released: string[];
}

/** The run a job event merges into, as the domain's merge sees it. */
export interface StoredRunSteps {
  state: RunState;
  stepsJson: string | null;
}

export type MergedJob =
  | (StoredRun & { ignored: false })
  /** The run already finished: nothing was written. */
  | { ignored: true; alertId: string; state: RunState };

export interface AlertGroupWrites {
  /**
   * Inserts the group's alert (with its attachments, outbox row, change event,
   * usage count and group row) when the channel has none for the key, else
   * updates it in place as `decide` says. One unit.
   */
  saveGroup(
    a: NewStandardAlert,
    group: { key: string } & StoredGroupState,
    decide: (stored: StoredGroupState) => GroupUpdate,
  ): Promise<SavedGroup>;
  /**
   * Merges one step into the run `a.content.workflowRunId`: `merge` gets the
   * stored run and returns its new steps JSON, or null to ignore the event.
   * A run not stored yet is inserted from `a` (steps included). One unit.
   */
  mergeRunStep(a: NewStandardAlert, merge: (stored: StoredRunSteps) => string | null): Promise<MergedJob>;
}
