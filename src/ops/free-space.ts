import fsp from 'node:fs/promises';
import type { Config } from '../config.js';
import { storageUnavailable, type StorageHealth } from './storage-health.js';

const MB = 1024 * 1024;

/** Bytes an unprivileged process may still write on the volume holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const st = await fsp.statfs(dir);
  return st.bavail * st.bsize;
}

/** A directory this node writes, named by its setting. */
export interface WrittenDir {
  setting: 'DATA_DIR' | 'MEDIA_DIR';
  dir: string;
}

/**
 * The directories a node writes locally: DATA_DIR for the SQLite file (on PostgreSQL the data is
 * the server's and DATA_DIR is not written), and MEDIA_DIR for the attachment files.
 */
export function writtenDirs(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'mediaDir'>): WrittenDir[] {
  const media: WrittenDir = { setting: 'MEDIA_DIR', dir: config.mediaDir };
  return config.databaseUrl ? [media] : [{ setting: 'DATA_DIR', dir: config.dataDir }, media];
}

/** One volume: the settings whose directories are on it, and its free bytes. */
export interface VolumeSpace {
  settings: WrittenDir['setting'][];
  free: number;
}

/** Free space per volume: directories on the same device (`stat().dev`) are measured once. */
export async function volumesOf(dirs: readonly WrittenDir[]): Promise<VolumeSpace[]> {
  const byDevice = new Map<number, VolumeSpace>();
  for (const d of dirs) {
    const { dev } = await fsp.stat(d.dir);
    const known = byDevice.get(dev);
    if (known) known.settings.push(d.setting);
    else byDevice.set(dev, { settings: [d.setting], free: await freeBytes(d.dir) });
  }
  return [...byDevice.values()];
}

/**
 * The media store's free-space reserve: an upload that would leave less than `reserveBytes` free
 * on the volume its bytes go to (MEDIA_DIR's) is refused with the 503 problem, so attachments
 * cannot take the last megabytes the database needs to commit when both share a volume, nor fill
 * a media volume of their own to the last byte.
 */
export class FreeSpaceReserve {
  constructor(
    private readonly dirs: Pick<Config, 'databaseUrl' | 'dataDir' | 'mediaDir'>,
    readonly reserveBytes: number,
    private readonly health: StorageHealth,
  ) {}

  /** Throws the 503 `storage-unavailable` problem when `bytes` more would cross the reserve. */
  async assertRoomFor(bytes: number): Promise<void> {
    if (this.reserveBytes === 0) return;
    const free = await freeBytes(this.dirs.mediaDir);
    if (free - bytes >= this.reserveBytes) return;
    // Named as before when the media share the database's volume (the usual layout).
    const volume = (await mediaSharesDataVolume(this.dirs)) ? 'data volume' : 'media volume';
    const reason = `free space on the ${volume} is below the reserve (${Math.floor(free / MB)} MB free, ${Math.round(this.reserveBytes / MB)} MB kept free)`;
    this.health.failed({ kind: 'full', reason });
    throw storageUnavailable(reason);
  }
}

/** Whether MEDIA_DIR is on the volume of the SQLite file in DATA_DIR (false on PostgreSQL). */
export async function mediaSharesDataVolume(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'mediaDir'>): Promise<boolean> {
  const volumes = await volumesOf(writtenDirs(config));
  return volumes.length === 1 && volumes[0]!.settings.includes('DATA_DIR');
}
