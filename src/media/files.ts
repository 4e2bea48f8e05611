import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** The media store's small file-system helpers, kept apart from its put/batch logic. */

/**
 * Deletes the file of every key `keep` does not hold on to; returns the deleted
 * keys (a file already gone is not an error). Synchronous on purpose: each
 * key's checks and its unlink happen in one tick, so no batch can pick the key
 * up in between.
 */
export function unlinkUnlessKept(keys: Iterable<string>, pathOf: (key: string) => string, keep: (key: string) => boolean): string[] {
  const deleted: string[] = [];
  for (const key of keys) {
    if (keep(key)) continue;
    try {
      fs.unlinkSync(pathOf(key));
      deleted.push(key);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
  }
  return deleted;
}

/** In-memory bytes as a stream of chunks, so a buffer put takes the same path as an upload. */
export async function* bufferChunks(buf: Uint8Array, chunkSize = 256 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.byteLength; i += chunkSize) yield buf.subarray(i, i + chunkSize);
}

/** Writes the whole chunk (a file handle's write may write less than asked). */
export async function writeAll(fh: fsp.FileHandle, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.byteLength) {
    const { bytesWritten } = await fh.write(chunk, off, chunk.byteLength - off);
    off += bytesWritten;
  }
}

/** Makes `final` the complete temp file; false when it already existed (same bytes). */
export async function linkIntoPlace(tmp: string, final: string): Promise<boolean> {
  try {
    await fsp.link(tmp, final); // atomic, and fails instead of replacing: tells us who created it
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    if (!isErrno(err, 'EPERM') && !isErrno(err, 'ENOTSUP') && !isErrno(err, 'EXDEV')) throw err;
  }
  // Filesystems without hard links: rename (atomic, may replace identical bytes).
  try {
    await fsp.access(final);
    return false;
  } catch {
    await fsp.rename(tmp, final);
    return true;
  }
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}
