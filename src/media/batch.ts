import { bufferChunks, unlinkUnlessKept } from './files.js';
import type { MediaBatch as MediaBatchPort, PutOptions, ReferenceCheck, StoredMedia } from '../domain/media.js';
import type { StoreInternals } from './media-types.js';

/**
 * The files one request stored. commit() once the request's data references them;
 * rollback() on failure deletes the files this batch created that nothing else holds.
 */
export class MediaBatch implements MediaBatchPort {
  readonly #store: StoreInternals;
  readonly #pending = new Set<Promise<unknown>>();
  /** Every key this batch pinned, once per put. */
  readonly #pinned: string[] = [];
  /** Keys whose file this batch created. */
  readonly #created = new Set<string>();
  #state: 'open' | 'committed' | 'rolled-back' = 'open';

  /** @internal Use MediaStore.batch(). */
  constructor(store: StoreInternals) {
    this.#store = store;
  }

  /** Like MediaStore.putStream, tracked by this batch. */
  putStream(body: AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<StoredMedia> {
    if (this.#state !== 'open') return Promise.reject(new Error(`media batch already ${this.#state}`));
    let pinnedKey: string | null = null;
    const p = this.#store
      .put(body, opts, (key) => {
        this.#store.pin(key);
        this.#pinned.push(key);
        pinnedKey = key;
      })
      .then((media) => {
        if (media.created) this.#created.add(media.key);
        return media;
      })
      .catch((err: unknown) => {
        // The put failed after pinning (link error): release the pin right away.
        if (pinnedKey !== null) {
          this.#store.unpin(pinnedKey);
          this.#pinned.splice(this.#pinned.indexOf(pinnedKey), 1);
        }
        throw err;
      });
    this.#pending.add(p);
    const forget = () => this.#pending.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Like MediaStore.putBuffer, tracked by this batch. */
  putBuffer(buf: Uint8Array, opts: PutOptions = {}): Promise<StoredMedia> {
    return this.putStream(bufferChunks(buf), { expectedSize: buf.byteLength, ...opts });
  }

  /** The request succeeded: its files are referenced now, release the pins. */
  async commit(): Promise<void> {
    this.#assertOpen();
    await this.#settle();
    this.#state = 'committed';
    for (const key of this.#pinned) this.#store.abandoned.delete(key);
    this.#release();
  }

  /**
   * The request failed: waits for its puts to settle, then deletes each file this
   * batch created unless `isReferenced(key)` or another in-flight batch holds it
   * (that batch then inherits the deletion). Returns the deleted keys.
   */
  async rollback(isReferenced: ReferenceCheck = () => false): Promise<string[]> {
    this.#assertOpen();
    await this.#settle();
    this.#state = 'rolled-back';
    const candidates = new Set(this.#created);
    for (const key of this.#pinned) if (this.#store.abandoned.has(key)) candidates.add(key);
    this.#release();
    const defer = this.#store.deferRollback;
    if (defer) {
      // Another node may be committing a reference to one of these files: the sweep decides, later.
      for (const key of candidates) this.#store.abandoned.delete(key);
      if (candidates.size > 0) await defer([...candidates]);
      return [];
    }
    const refs = this.#store.references(candidates, isReferenced);
    const { used, touched } = refs instanceof Promise ? await refs : refs;
    return unlinkUnlessKept(candidates, this.#store.pathOf, (key) => {
      if (this.#store.isPinned(key)) {
        this.#store.abandoned.add(key);
        return true;
      }
      this.#store.abandoned.delete(key);
      // Pinned and released meanwhile: that upload may have committed a reference.
      return touched.has(key) || used.has(key);
    });
  }

  async #settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #release(): void {
    for (const key of this.#pinned) this.#store.unpin(key);
    this.#pinned.length = 0;
  }

  #assertOpen(): void {
    if (this.#state !== 'open') throw new Error(`media batch already ${this.#state}`);
  }
}
