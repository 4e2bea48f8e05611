/**
 * Runs async store units one after another, in the order they were called: what every store unit
 * gets on SQLite (one synchronous immediate transaction at a time). The outboxes' claims go
 * through one, so that within a node the flood guard counts a recipient's deliveries in the order
 * the worker took them due (the first FLOOD_LIMIT of a burst sent, the later ones folded), not in
 * the order their transactions happened to reach the window's lock. Across nodes, whichever claim
 * locks the window first counts first.
 */
export class InOrder {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(unit: () => Promise<T>): Promise<T> {
    const result = this.tail.then(unit);
    // The next unit waits for this one to settle, whatever its outcome (the caller sees the rejection).
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
