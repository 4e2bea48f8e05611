/** Optional watcher of both engines' group commits (metrics, storage health); called after the promises are settled. */
export interface BatchObserver {
  committed(size: number): void;
  /** BEGIN or COMMIT failed (or the whole transaction was abandoned): every unit was rejected with `err`. */
  failed(err: unknown, size: number): void;
}
