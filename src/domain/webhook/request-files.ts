import type { AttachmentRecord } from '../alert-rows.js';
import type { MediaBatch, StoredMedia } from '../media.js';
import type { AttachmentInput } from './payload.js';

/** A file a multipart body brought, already streamed into the request's batch, with the name its sender gave. */
export interface UploadedFile {
  media: StoredMedia;
  name: string | null;
}

/**
 * The files of one webhook request: those its multipart body brought and those its JSON names (URL
 * downloads, base64), held in one media batch until the alert that references them commits.
 */
export interface RequestFiles {
  /** How many file parts a multipart body brought (0 for JSON). */
  readonly uploadCount: number;
  /** Stores `attachments[]` items (URL downloads, base64) after the multipart uploads. */
  resolveAttachments(items: AttachmentInput[]): Promise<AttachmentRecord[]>;
  /**
   * Downloads remote media for a drop-in format: one URL that cannot be fetched
   * (or that exceeds the attachment cap) is skipped and reported, not refused.
   * Returns the downloads followed by the multipart uploads.
   */
  fetchSkipping(urls: readonly string[]): Promise<{ attachments: AttachmentRecord[]; skipped: string[] }>;
  /** The alert that references the files committed. */
  commit(): Promise<void>;
  /** The request failed: remove the files it created that nothing references. */
  discard(): Promise<void>;
}

/**
 * Where a webhook request's files go: the media store and the SSRF-guarded fetcher
 * (src/media/request-files.ts). The transport streams a multipart body's uploads into `batch()`;
 * the accept-alert use case stores and fetches the rest through the `RequestFiles` it opens.
 */
export interface WebhookFiles {
  /** A batch for a multipart body's uploads. */
  batch(): MediaBatch;
  /**
   * `signal` gives what stops downloads when the sender hangs up, read only when a download starts
   * (the request's AbortSignal is made on first read, a cost most alerts never need);
   * `uploaded`: the batch a multipart body streamed its files into.
   */
  open(signal: () => AbortSignal, uploaded?: { batch: MediaBatch; uploads: UploadedFile[] }): RequestFiles;
}
