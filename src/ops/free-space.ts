import fsp from 'node:fs/promises';
import { storageUnavailable, type StorageHealth } from './storage-health.js';

const MB = 1024 * 1024;

/** Bytes an unprivileged process may still write on the volume holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const st = await fsp.statfs(dir);
  return st.bavail * st.bsize;
}

/**
 * The media store's free-space reserve: an upload that would leave less than
 * `reserveBytes` free on the data volume is refused with the 503 problem, so
 * attachments cannot take the last megabytes the database needs to commit.
 */
export class FreeSpaceReserve {
  constructor(
    private readonly dir: string,
    readonly reserveBytes: number,
    private readonly health: StorageHealth,
  ) {}

  /** Throws the 503 `storage-unavailable` problem when `bytes` more would cross the reserve. */
  async assertRoomFor(bytes: number): Promise<void> {
    if (this.reserveBytes === 0) return;
    const free = await freeBytes(this.dir);
    if (free - bytes >= this.reserveBytes) return;
    const reason = `free space on the data volume is below the reserve (${Math.floor(free / MB)} MB free, ${Math.round(this.reserveBytes / MB)} MB kept free)`;
    this.health.failed({ kind: 'full', reason });
    throw storageUnavailable(reason);
  }
}
