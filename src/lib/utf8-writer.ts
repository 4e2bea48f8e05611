/** Where JSON text pieces go: a `string[]` (joined later) or a Utf8Writer (encoded a chunk at a time). */
export interface TextSink {
  push(a: string, b?: string, c?: string): unknown;
}

/** Pieces gathered before one join and one native write: a few KB of text at a time. */
const CHUNK = 256;

/**
 * Encodes text pieces into one reusable byte buffer, a chunk of pieces at a time, so a page of JSON
 * never exists as one big array of pieces, as one joined (possibly two-byte) string and again as
 * bytes: the garbage is a few KB per chunk, plus the final copy (outside the JS heap). The pieces of
 * a chunk are joined first (a native call per piece would cost more than the join), then encoded;
 * a piece is never split, so no surrogate pair is, and the bytes equal `Buffer.from(pieces.join(''))`.
 * Not re-entrant: fill and take `bytes()` without awaiting in between.
 */
export class Utf8Writer implements TextSink {
  private buffer: Buffer;
  private length = 0;
  /** Always CHUNK long (unused slots hold ''), so the array is never reallocated. */
  private readonly pieces: string[] = new Array<string>(CHUNK).fill('');
  private count = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buffer = Buffer.allocUnsafeSlow(initialBytes);
  }

  reset(): this {
    this.length = 0;
    this.clearPieces();
    return this;
  }

  push(a: string, b?: string, c?: string): void {
    if (this.count + 3 > CHUNK) this.flush();
    const pieces = this.pieces;
    pieces[this.count++] = a;
    if (b !== undefined) pieces[this.count++] = b;
    if (c !== undefined) pieces[this.count++] = c;
  }

  /** A copy of what was written, owning its memory (the writer's buffer is reused). */
  bytes(): Buffer<ArrayBuffer> {
    this.flush();
    const out = Buffer.allocUnsafeSlow(this.length);
    this.buffer.copy(out, 0, 0, this.length);
    return out;
  }

  private flush(): void {
    if (this.count === 0) return;
    const text = this.pieces.join('');
    this.clearPieces();
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a pair: 4 bytes for 2 units).
    if (this.length + text.length * 3 > this.buffer.length) this.grow(this.length + text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  private clearPieces(): void {
    for (let i = 0; i < this.count; i++) this.pieces[i] = '';
    this.count = 0;
  }

  private grow(atLeast: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(atLeast, this.buffer.length * 2));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
