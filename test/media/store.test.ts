import { eventually } from '../helpers/poll.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MEDIA_LIMITS, type MediaKind } from '../../src/domain/media.js';
import { MEDIA_KEY_RE, type MediaStore } from '../../src/media/store.js';
import * as fx from './fixtures.js';
import { expectAppError, listDir, tempStore } from './helpers.js';

let store: MediaStore;
let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ store, dir, cleanup } = tempStore());
});
afterEach(() => cleanup());

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('MediaStore.putBuffer / putStream', () => {
  it.each(fx.SUPPORTED)('stores $name as $mime', async ({ bytes, mime, ext, kind }) => {
    const b = bytes();
    const m = await store.putBuffer(b);
    expect(m).toEqual({
      key: `${sha(b)}.${ext}`,
      sha256: sha(b),
      ext,
      mime,
      kind,
      size: b.length,
      url: `http://media.test/media/${sha(b)}.${ext}`,
      created: true,
    });
    expect(m.key).toMatch(MEDIA_KEY_RE);
    expect(fs.readFileSync(path.join(dir, m.key)).equals(b)).toBe(true);
    expect(listDir(dir)).toEqual([m.key]);
  });

  it.each(fx.REFUSED)('refuses $name and leaves nothing behind', async ({ bytes }) => {
    await expectAppError(store.putBuffer(bytes(), { label: 'file "cat.png"' }), 'unsupported-attachment-type', /file "cat\.png"/);
    expect(listDir(dir)).toEqual([]);
  });

  it('says why an SVG is refused, even when it is called .png', async () => {
    await expectAppError(store.putBuffer(fx.svgRenamedPng.bytes, { label: 'file "cat.png"' }), 'unsupported-attachment-type', /SVG/);
    await expectAppError(store.putBuffer(fx.svgWithXmlDecl(), { declaredKind: 'image' }), 'unsupported-attachment-type', /SVG/);
  });

  it('refuses a declared type that contradicts the bytes', async () => {
    await expectAppError(store.putBuffer(fx.png(), { declaredKind: 'video', label: 'attachments[1]' }), 'attachment-type-mismatch', /attachments\[1\]/);
    await expectAppError(store.putBuffer(fx.mp3(), { declaredKind: 'image' }), 'attachment-type-mismatch');
    await expectAppError(store.putBuffer(fx.webm(), { declaredKind: 'audio' }), 'attachment-type-mismatch');
    expect(listDir(dir)).toEqual([]);
    expect((await store.putBuffer(fx.webm(), { declaredKind: 'video' })).mime).toBe('video/webm');
  });

  it('stores the same bytes once: the second put reports created: false', async () => {
    const a = await store.putBuffer(fx.png(7));
    const b = await store.putStream(chunksOf(fx.png(7), 3));
    expect(b).toEqual({ ...a, created: false });
    expect(listDir(dir)).toEqual([a.key]);
  });

  it('two concurrent puts of the same bytes: exactly one creates the file', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => store.putStream(chunksOf(fx.gif(), 5))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(listDir(dir)).toEqual([results[0]!.key]);
  });

  it('a source that fails midway leaves no file and no temp file', async () => {
    async function* broken() {
      yield fx.png();
      throw new Error('connection reset');
    }
    await expect(store.putStream(broken())).rejects.toThrow('connection reset');
    expect(listDir(dir)).toEqual([]);
  });
});

describe('size limits are enforced while streaming', () => {
  const heads: Record<MediaKind, Buffer> = { image: fx.png(), audio: fx.mp3(), video: fx.webm() };

  it.each(['image', 'audio', 'video'] as MediaKind[])(
    'a 60 MB %s stream is cut off just past the limit, with flat memory',
    async (kind) => {
      const limit = MEDIA_LIMITS[kind];
      const chunk = 64 * 1024;
      const { body, counter } = fx.countingStream(heads[kind], 60 * 1000 * 1000, chunk);
      globalThis.gc?.();
      const rssBefore = process.memoryUsage().rss;
      let peak = rssBefore;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      try {
        await expectAppError(store.putStream(body, { label: 'file "big"' }), 'attachment-too-large', new RegExp(`file "big".*${limit / MiB} MiB`));
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      expect(counter.pulled).toBeGreaterThan(limit);
      expect(counter.pulled).toBeLessThanOrEqual(limit + chunk); // not one chunk more than needed
      expect(counter.done).toBe(true); // the source was closed (return() called), not left hanging
      expect(peak - rssBefore).toBeLessThan(24 * MiB); // far below the limit: never held in memory
      expect(listDir(dir)).toEqual([]); // temp file removed at once
    },
  );

  it('exactly the limit is accepted, one byte more is not', async () => {
    const limit = MEDIA_LIMITS.image;
    const ok = await store.putStream(fx.countingStream(fx.png(1), limit).body);
    expect(ok).toMatchObject({ kind: 'image', size: limit });
    await expectAppError(store.putStream(fx.countingStream(fx.png(2), limit + 1).body), 'attachment-too-large', /10 MiB limit for images/);
    expect(listDir(dir)).toEqual([ok.key]);
  });

  it('with a declared kind, an announced size over its limit is refused before reading', async () => {
    const { body, counter } = fx.countingStream(fx.png(), 11 * MiB);
    await expectAppError(store.putStream(body, { declaredKind: 'image', expectedSize: 11 * MiB }), 'attachment-too-large', /10 MiB/);
    expect(counter.pulled).toBe(0);
  });

  it('an announced size over the limit is refused before reading', async () => {
    const { body, counter } = fx.countingStream(fx.png(), 11 * MiB);
    await expectAppError(store.putStream(body, { expectedSize: 51 * MiB }), 'attachment-too-large', /50 MiB/);
    expect(counter.pulled).toBe(0);
    // Over the image limit but under video: refused as soon as the head says "image".
    const s2 = fx.countingStream(fx.png(), 11 * MiB);
    await expectAppError(store.putStream(s2.body, { expectedSize: 11 * MiB }), 'attachment-too-large', /10 MiB/);
    expect(s2.counter.pulled).toBeLessThanOrEqual(128 * 1024);
    expect(listDir(dir)).toEqual([]);
  });
});

describe('temp files', () => {
  it('are never visible as served keys, and vanish when the put completes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow() {
      yield fx.png(3).subarray(0, 20);
      await gate;
      yield fx.png(3).subarray(20);
    }
    const put = store.putStream(slow());
    await eventually(() => listDir(dir).length === 1, 'one file in the store', { timeoutMs: 2_000 });
    const [tmp] = listDir(dir);
    expect(tmp).toMatch(/^\.tmp-/);
    expect(tmp).not.toMatch(MEDIA_KEY_RE);
    expect(await store.openForRead(tmp!)).toBeNull();
    release();
    const m = await put;
    expect(listDir(dir)).toEqual([m.key]);
    expect(await store.openForRead(m.key)).toMatchObject({ size: m.size, mime: 'image/png', sha256: m.sha256 });
  });

  it('sweepTemp removes leftovers of a crash and nothing else', async () => {
    const m = await store.putBuffer(fx.jpeg());
    fs.writeFileSync(path.join(dir, '.tmp-999-deadbeef'), 'half a file');
    fs.writeFileSync(path.join(dir, '.tmp-998-cafe'), '');
    expect(await store.sweepTemp()).toBe(2);
    expect(listDir(dir)).toEqual([m.key]);
  });
});

describe('openForRead', () => {
  it.each([
    '../etc/passwd',
    '..%2Fetc%2Fpasswd',
    'a'.repeat(64) + '.png', // not hex
    'A'.repeat(64) + '.png',
    '0'.repeat(63) + '.png',
    '0'.repeat(64) + '.png/..',
    '0'.repeat(64) + '.exe1',
    '0'.repeat(64) + '.svg', // valid shape, not a stored type
    '0'.repeat(64) + '.png', // valid, absent
    '',
  ])('returns null for %j', async (key) => {
    expect(await store.openForRead(key)).toBeNull();
  });
});

describe('MediaBatch', () => {
  it('rollback deletes only the files this batch created', async () => {
    const existing = await store.putBuffer(fx.png(10));
    const batch = store.batch();
    const mine = await batch.putBuffer(fx.png(11));
    const reused = await batch.putBuffer(fx.png(10));
    expect(mine.created).toBe(true);
    expect(reused.created).toBe(false);
    expect(await batch.rollback()).toEqual([mine.key]);
    expect(listDir(dir)).toEqual([existing.key]);
  });

  it('rollback keeps what isReferenced says is referenced', async () => {
    const batch = store.batch();
    const a = await batch.putBuffer(fx.png(20));
    const b = await batch.putBuffer(fx.png(21));
    expect(await batch.rollback((key) => key === a.key)).toEqual([b.key]);
    expect(listDir(dir)).toEqual([a.key]);
  });

  it('rollback keeps a file another in-flight batch holds; that batch inherits it', async () => {
    const first = store.batch();
    const second = store.batch();
    const a = await first.putBuffer(fx.png(30));
    const b = await second.putBuffer(fx.png(30));
    expect([a.created, b.created]).toEqual([true, false]);
    expect(store.isPinned(a.key)).toBe(true);
    expect(await first.rollback()).toEqual([]);
    expect(listDir(dir)).toEqual([a.key]);
    expect(await second.rollback()).toEqual([a.key]);
    expect(listDir(dir)).toEqual([]);
  });

  it('a commit of the other batch keeps the inherited file', async () => {
    const first = store.batch();
    const second = store.batch();
    const a = await first.putBuffer(fx.png(31));
    await second.putBuffer(fx.png(31));
    await first.rollback();
    await second.commit();
    expect(store.isPinned(a.key)).toBe(false);
    expect(listDir(dir)).toEqual([a.key]);
    // A later unrelated batch that reuses it and rolls back does not delete it.
    const third = store.batch();
    await third.putBuffer(fx.png(31));
    expect(await third.rollback()).toEqual([]);
    expect(listDir(dir)).toEqual([a.key]);
  });

  it('rollback waits for puts still streaming, and removes their files too', async () => {
    const batch = store.batch();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow() {
      yield fx.gif().subarray(0, 10);
      await gate;
      yield fx.gif().subarray(10);
    }
    const pending = batch.putStream(slow());
    const rolledBack = batch.rollback();
    let settled = false;
    void rolledBack.finally(() => (settled = true));
    await new Promise(setImmediate); // one turn of the event loop, not a timed wait: the gate holds the put
    expect(settled).toBe(false); // the rollback holds while the put is still streaming
    release();
    const media = await pending;
    expect(await rolledBack).toEqual([media.key]);
    expect(listDir(dir)).toEqual([]);
  });

  it('commit releases the pins; a closed batch refuses new puts', async () => {
    const batch = store.batch();
    const m = await batch.putBuffer(fx.wav());
    expect(store.isPinned(m.key)).toBe(true);
    await batch.commit();
    expect(store.isPinned(m.key)).toBe(false);
    await expect(batch.putBuffer(fx.wav())).rejects.toThrow(/already committed/);
    await expect(batch.rollback()).rejects.toThrow(/already committed/);
    expect(listDir(dir)).toEqual([m.key]);
  });

  it('a failed put in a batch leaves nothing pinned or stored', async () => {
    const batch = store.batch();
    await expectAppError(batch.putBuffer(fx.svg()), 'unsupported-attachment-type');
    expect(await batch.rollback()).toEqual([]);
    expect(listDir(dir)).toEqual([]);
  });
});

async function* chunksOf(buf: Buffer, n: number): AsyncGenerator<Uint8Array> {
  const size = Math.ceil(buf.length / n);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

