import type { MediaKind, PutOptions, ReferenceCheck, StoredMedia } from '../domain/media.js';
import type { References } from './references.js';

/** What openForRead returns: everything the media route needs to answer. */
export interface MediaFileInfo {
  key: string;
  path: string;
  sha256: string;
  ext: string;
  mime: string;
  kind: MediaKind;
  size: number;
  mtime: Date;
}

/** Receives a put's key once its bytes are complete, before it is linked into place. */
export type KeyHook = (key: string) => void;

/** The store's internals a batch uses (not part of the public API). */
export interface StoreInternals {
  put(body: AsyncIterable<Uint8Array>, opts: PutOptions, onKey: KeyHook): Promise<StoredMedia>;
  pin(key: string): void;
  unpin(key: string): void;
  isPinned(key: string): boolean;
  /** The keys among `keys` an alert uses, and those an upload pinned or unpinned while they were asked. */
  references(keys: Iterable<string>, isReferenced: ReferenceCheck): References | Promise<References>;
  pathOf(key: string): string;
  /**
   * Keys a rolled-back batch created but left because another in-flight batch
   * held them: that batch's rollback deletes them, its commit keeps them.
   */
  abandoned: Set<string>;
  /** Set when other processes share the directory: a rollback lists its files for the sweep instead of deleting them. */
  deferRollback: ((keys: string[]) => Promise<void>) | undefined;
}
