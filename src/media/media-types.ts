import type { MediaKind } from './formats.js';
import type { ReferenceCheck, References } from './references.js';

/** One stored file, as the rest of the service refers to it. */
export interface StoredMedia {
  /** `<sha256>.<ext>`: the file name and the last path segment of `url`. */
  key: string;
  sha256: string;
  ext: string;
  mime: string;
  kind: MediaKind;
  size: number;
  /** Our own public URL of the file (never the sender's source URL). */
  url: string;
  /** True when this call created the file; false when the same bytes were already stored. */
  created: boolean;
}

/** Options of a put. */
export interface PutOptions {
  /** The sender's declared kind: contradicting bytes are refused ('attachment-type-mismatch'). */
  declaredKind?: MediaKind;
  /** Names the file in error messages, e.g. `attachments[2]` or `file "cat.png"`. */
  label?: string;
  /** A size announced up front (Content-Length): refused before reading when over the limit. */
  expectedSize?: number;
}

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
