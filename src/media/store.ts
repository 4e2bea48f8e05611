import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { bufferChunks, isErrno, linkIntoPlace, unlinkUnlessKept, writeAll } from './files.js';
import { MediaBatch } from './batch.js';
import type { MediaKind, MediaStore as MediaStorePort, PutOptions, ReferenceCheck, StoredMedia } from '../domain/media.js';
import type { KeyHook, MediaFileInfo, StoreInternals } from './media-types.js';
import { referencesOf, settleOrphans, type References, type SettleKey } from './references.js';
import {
  SNIFF_BYTES,
  formatOfExt,
  limitFor,
  resolveDeclaredKind,
  sniffFormat,
  tooLargeError,
  unsupportedError,
  type MediaFormat,
} from './formats.js';

/**
 * Content-addressed attachment files: `<dir>/<sha256hex>.<ext>`, written through
 * a temp file in the same directory and linked into place only when complete,
 * so a served key always names a whole, sniffed, size-checked file.
 */

/** A valid key: lower-case sha256 hex, a dot, a short extension. Checked before touching the filesystem. */
export const MEDIA_KEY_RE = /^[0-9a-f]{64}\.[a-z0-9]{2,4}$/;

/** Temp files start with a dot, so they can never match MEDIA_KEY_RE (never served). */
const TEMP_PREFIX = '.tmp-';

export type { MediaFileInfo } from './media-types.js';
export { MediaBatch } from './batch.js';

/** The content-addressed file store of attachments. */
export class MediaStore implements MediaStorePort {
  readonly dir: string;
  readonly publicUrl: string;
  /** Keys held by in-flight batches, with a count: rollback never deletes a pinned key. */
  readonly #pins = new Map<string, number>();
  /** One set per reference check in progress, collecting the keys pinned or unpinned meanwhile. */
  readonly #watchers = new Set<Set<string>>();
  readonly #internals: StoreInternals;

  /** Refuses a write of that many bytes (the free-space reserve, src/ops/free-space.ts); none by default. */
  readonly #spaceGuard: { assertRoomFor(bytes: number): Promise<void> } | undefined;
  /** The pin other nodes' sweeps see (MediaOrphanRows.pin), taken after the in-memory pin and before the link. */
  readonly #sharedPin: ((key: string) => Promise<void>) | undefined;

  /**
   * `sharedPin` and `deferRollback`: for a directory other nodes share (cluster mode). A failed
   * request cannot know whether another node's upload of the same bytes has linked the file and is
   * about to commit, so its rollback hands the files it created to `deferRollback` (the orphan list:
   * deleted by the sweep after the grace period, under each key's lock, if still unreferenced).
   */
  constructor(opts: {
    dir: string;
    publicUrl: string;
    spaceGuard?: { assertRoomFor(bytes: number): Promise<void> };
    sharedPin?: (key: string) => Promise<void>;
    deferRollback?: (keys: string[]) => Promise<void>;
  }) {
    this.dir = path.resolve(opts.dir);
    this.#spaceGuard = opts.spaceGuard;
    this.#sharedPin = opts.sharedPin;
    this.publicUrl = opts.publicUrl.replace(/\/+$/, '');
    fs.mkdirSync(this.dir, { recursive: true });
    this.#internals = {
      put: (body, o, onKey) => this.#put(body, o, onKey),
      pin: (key) => {
        this.#pins.set(key, (this.#pins.get(key) ?? 0) + 1);
        for (const w of this.#watchers) w.add(key);
      },
      unpin: (key) => {
        const n = (this.#pins.get(key) ?? 0) - 1;
        if (n > 0) this.#pins.set(key, n);
        else this.#pins.delete(key);
        for (const w of this.#watchers) w.add(key);
      },
      isPinned: (key) => this.#pins.has(key),
      references: (keys, isReferenced) => referencesOf(keys, (key) => this.#pins.has(key), isReferenced, this.#watchers),
      pathOf: (key) => path.join(this.dir, key),
      abandoned: new Set(),
      deferRollback: opts.deferRollback,
    };
  }

  /** Stores a stream; limits are enforced as bytes arrive. Prefer a batch() inside requests. */
  putStream(body: AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<StoredMedia> {
    return this.#put(body, opts, () => {});
  }

  /** Stores bytes already in memory (decoded base64). */
  putBuffer(buf: Uint8Array, opts: PutOptions = {}): Promise<StoredMedia> {
    return this.putStream(bufferChunks(buf), { expectedSize: buf.byteLength, ...opts });
  }

  /** Starts per-request tracking so that a failed request can remove the files it created. */
  batch(): MediaBatch {
    return new MediaBatch(this.#internals);
  }

  /** Our public URL of a key. */
  urlFor(key: string): string {
    return `${this.publicUrl}/${key}`;
  }

  /** True while some in-flight batch holds the key. */
  isPinned(key: string): boolean {
    return this.#pins.has(key);
  }

  /**
   * Deletes files that no alert references any more (an attachment replaced by
   * a workflow update, a deleted chat message). Call after the commit that
   * dropped the references. Keys held by an in-flight batch are left to it.
   */
  removeUnreferenced(keys: Iterable<string>, isReferenced: ReferenceCheck): string[] | Promise<string[]> {
    const candidates = new Set([...keys].filter((key) => MEDIA_KEY_RE.test(key)));
    const remove = ({ used, touched }: References) =>
      unlinkUnlessKept(candidates, (key) => path.join(this.dir, key), (key) => this.#pins.has(key) || touched.has(key) || used.has(key));
    const refs = referencesOf(candidates, (key) => this.#pins.has(key), isReferenced, this.#watchers);
    return refs instanceof Promise ? refs.then(remove) : remove(refs);
  }

  /** The orphan sweep's deletion (src/ops/media-orphans.ts): each key settled under `settle`, the key's lock across nodes. */
  removeOrphans(keys: readonly string[], isReferenced: ReferenceCheck, settle: SettleKey): Promise<{ deleted: string[]; settled: number }> {
    // A malformed key (never listed by this code) names no file of ours: it is only forgotten.
    const unlink = (key: string) => MEDIA_KEY_RE.test(key) && unlinkUnlessKept([key], (k) => path.join(this.dir, k), () => false).length === 1;
    return settleOrphans(keys, isReferenced, settle, { isPinned: (key) => this.#pins.has(key), watchers: this.#watchers, unlink });
  }

  /** Looks a key up for serving; null for a malformed key or a missing file. */
  async openForRead(key: string): Promise<MediaFileInfo | null> {
    if (!MEDIA_KEY_RE.test(key)) return null;
    const [sha256, ext] = key.split('.') as [string, string];
    const format = formatOfExt(ext);
    if (!format) return null;
    const file = path.join(this.dir, key);
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) return null;
      return { key, path: file, sha256, ...format, size: st.size, mtime: st.mtime };
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return null;
      throw err;
    }
  }

  /**
   * Deletes temp files left by a crash. Call at startup, before serving: with the
   * default `olderThanMs = 0` it also removes the temp files of running uploads.
   */
  async sweepTemp(olderThanMs = 0): Promise<number> {
    let removed = 0;
    const now = Date.now();
    for (const name of await fsp.readdir(this.dir)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const file = path.join(this.dir, name);
      try {
        if (olderThanMs > 0 && now - (await fsp.stat(file)).mtimeMs < olderThanMs) continue;
        await fsp.unlink(file);
        removed++;
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
    }
    return removed;
  }

  async #put(body: AsyncIterable<Uint8Array>, opts: PutOptions, onKey: KeyHook): Promise<StoredMedia> {
    const label = opts.label ?? 'attachment';
    // A caller's own cap (avatars) lowers the kind's limit, never raises it.
    const cap = (kind?: MediaKind) => Math.min(limitFor(kind), opts.maxBytes ?? Infinity);
    const preLimit = cap(opts.declaredKind);
    if (opts.expectedSize !== undefined && opts.expectedSize > preLimit) {
      throw tooLargeError(opts.declaredKind ?? 'video', label, preLimit);
    }
    // A stream of unknown length is assumed to reach its kind's limit: the reserve must hold whatever arrives.
    await this.#spaceGuard?.assertRoomFor(opts.expectedSize ?? preLimit);

    const tmp = path.join(this.dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`);
    const fh = await fsp.open(tmp, 'wx', 0o644);
    let closed = false;
    try {
      const hash = createHash('sha256');
      const headParts: Buffer[] = [];
      let headLen = 0;
      let size = 0;
      let format: MediaFormat | null = null;
      let limit = preLimit;
      let limitKind: MediaKind = opts.declaredKind ?? 'video';

      const decide = async (): Promise<MediaFormat> => {
        const head = Buffer.concat(headParts, headLen);
        headParts.length = 0;
        const sniffed = await sniffFormat(head);
        if (!sniffed) throw unsupportedError(head, label);
        const f = resolveDeclaredKind(sniffed, opts.declaredKind, label);
        limit = cap(f.kind);
        limitKind = f.kind;
        if (opts.expectedSize !== undefined && opts.expectedSize > limit) throw tooLargeError(limitKind, label, limit);
        return f;
      };

      for await (const chunk of body) {
        if (chunk.byteLength === 0) continue;
        size += chunk.byteLength;
        // Checked before writing: the byte past the limit is never stored, and
        // leaving the loop makes for-await call return() on the source at once.
        if (size > limit) throw tooLargeError(limitKind, label, limit);
        if (!format && headLen < SNIFF_BYTES) {
          const take = chunk.subarray(0, SNIFF_BYTES - headLen);
          headParts.push(Buffer.from(take)); // copy: the producer may reuse its buffer
          headLen += take.byteLength;
          if (headLen >= SNIFF_BYTES) {
            format = await decide();
            if (size > limit) throw tooLargeError(limitKind, label, limit);
          }
        }
        hash.update(chunk);
        await writeAll(fh, chunk);
      }
      const fmt = format ?? (await decide());
      if (size > limit) throw tooLargeError(limitKind, label, limit);

      await fh.datasync();
      await fh.close();
      closed = true;

      const sha256 = hash.digest('hex');
      const key = `${sha256}.${fmt.ext}`;
      const final = path.join(this.dir, key);
      onKey(key); // pinned before it becomes visible: a concurrent rollback cannot remove it under us
      let created: boolean;
      try {
        // Across nodes, after the pin: a sweep that deleted the file before it is followed by a link that writes it again.
        await this.#sharedPin?.(key);
        created = await linkIntoPlace(tmp, final);
      } finally {
        await fsp.unlink(tmp).catch(() => {});
      }
      return { key, sha256, ext: fmt.ext, mime: fmt.mime, kind: fmt.kind, size, url: this.urlFor(key), created };
    } catch (err) {
      if (!closed) await fh.close().catch(() => {});
      await fsp.unlink(tmp).catch(() => {});
      throw err;
    }
  }
}
