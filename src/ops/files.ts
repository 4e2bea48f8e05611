import fs from 'node:fs';

/**
 * A refusal an operator can act on (the file exists, the service is running,
 * the backup is damaged): the CLI prints the message and exits with 2.
 */
export class OpsRefusal extends Error {}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

/** Flushes a file's bytes to disk before it gets its final name. */
export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes a rename or link durable (the directory entry itself). Not every platform allows it; best effort there. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (err) {
    if (!isErrno(err, 'EISDIR') && !isErrno(err, 'EPERM') && !isErrno(err, 'EINVAL')) throw err;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Moves the complete file `from` to `to` atomically without replacing an
 * existing `to`: false when `to` exists (and `from` is left in place).
 * A hard link fails instead of replacing; on filesystems without hard links a
 * rename after an existence check (atomic, but racing a concurrent creator).
 */
export function moveNoReplace(from: string, to: string): boolean {
  try {
    fs.linkSync(from, to);
    fs.unlinkSync(from);
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    if (!isErrno(err, 'EPERM') && !isErrno(err, 'ENOTSUP')) throw err;
  }
  if (fs.existsSync(to)) return false;
  fs.renameSync(from, to);
  return true;
}

/** The size of a file, 0 when it does not exist. */
export function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return 0;
    throw err;
  }
}
