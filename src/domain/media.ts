/**
 * Media as the use cases see it: the limits the spec sets, and the ports the media store and the
 * attachment fetcher (src/media/) implement. Nothing here touches a file or a socket.
 */

/** The three kinds an alert attachment can be; the webhook's `type` uses the same words. */
export type MediaKind = 'image' | 'video' | 'audio';

/** Runtime list of the kinds, for schemas and validation. */
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio'];

const MiB = 1024 * 1024;

/** Largest accepted size per kind, in bytes (enforced while streaming). */
export const MEDIA_LIMITS: Readonly<Record<MediaKind, number>> = Object.freeze({
  image: 10 * MiB,
  audio: 25 * MiB,
  video: 50 * MiB,
});

/** The largest limit of any kind: the cap while the kind is not known yet. */
export const MAX_MEDIA_BYTES = Math.max(...Object.values(MEDIA_LIMITS));

/** An alert carries at most this many attachments (uploads and JSON items together). */
export const MAX_ATTACHMENTS = 10;

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
  /** A lower cap than the kind's limit (an avatar is small); never raises it. */
  maxBytes?: number;
}

/**
 * Whether any alert still uses a media key: synchronous on SQLite, a query on PostgreSQL. Deleting
 * waits for every answer first and then decides key by key in one tick; a key pinned or unpinned
 * by an upload while the answers were coming is kept (its upload may have committed a new reference).
 */
export type ReferenceCheck = (key: string) => boolean | Promise<boolean>;

/**
 * The files one request stored (src/media/batch.ts). commit() once the request's data references
 * them; rollback() on failure deletes the files this batch created that nothing else holds.
 */
export interface MediaBatch {
  putStream(body: AsyncIterable<Uint8Array>, opts?: PutOptions): Promise<StoredMedia>;
  putBuffer(buf: Uint8Array, opts?: PutOptions): Promise<StoredMedia>;
  commit(): Promise<void>;
  /** Returns the deleted keys. */
  rollback(isReferenced?: ReferenceCheck): Promise<string[]>;
}

/** The content-addressed media store (src/media/store.ts), as far as the use cases write to it. */
export interface MediaStore {
  batch(): MediaBatch;
}

/** Options of one download. */
export interface FetchIntoOptions {
  declaredKind?: MediaKind;
  /** Names the attachment in error messages (default: the URL without query). */
  label?: string;
  /** Aborts the download (e.g. a sibling attachment failed). */
  signal?: AbortSignal;
  /** See PutOptions.maxBytes. */
  maxBytes?: number;
}

/** The SSRF-guarded attachment downloader (src/media/fetcher.ts): one method, downloading into a batch. */
export interface MediaFetcher {
  fetchInto(url: string, batch: MediaBatch, opts?: FetchIntoOptions): Promise<StoredMedia>;
}
