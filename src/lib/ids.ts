import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: sorts like the numbers it encodes
const DISCORD_EPOCH = 1420070400000n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

function decode(text: string): bigint {
  let v = 0n;
  for (const ch of text) v = (v << 5n) | BigInt(Math.max(0, ALPHABET.indexOf(ch)));
  return v;
}

/** 2^40: the 80-bit tail is kept as two 40-bit halves (8 characters each), exact in a double. */
const HALF = 2 ** 40;

/** Every 10-bit value as its two characters. */
const PAIRS = Array.from({ length: 1024 }, (_, v) => ALPHABET[v >> 5]! + ALPHABET[v & 31]!);

/** `value` (below 2^50, a safe integer) as `length` (even) Crockford base32 characters. */
function encodeNumber(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 2) {
    out = PAIRS[value % 1024]! + out;
    value = Math.floor(value / 1024);
  }
  return out;
}

const decodeNumber = (text: string) => Number(decode(text));

/** Random bytes drawn in blocks: one crypto call per 409 tails instead of one per millisecond. */
const RANDOM_BLOCK = 4096;
let randomPool = Buffer.alloc(0);
let randomAt = 0;
function randomTail(): [number, number] {
  if (randomAt + 10 > randomPool.length) {
    randomPool = randomBytes(RANDOM_BLOCK);
    randomAt = 0;
  }
  const b = randomPool;
  const i = randomAt;
  randomAt += 10;
  // 79 random bits, top bit clear so increments never overflow in practice.
  return [(b[i]! & 0x7f) * 2 ** 32 + b.readUInt32BE(i + 1), b[i + 5]! * 2 ** 32 + b.readUInt32BE(i + 6)];
}

/**
 * Monotonic, lexicographically sortable ids (ULID layout: 48-bit millisecond
 * time in 10 characters, then 80 bits in 16). Within one millisecond, or if the
 * clock steps back, the 80-bit part is incremented, so ids made by this process
 * are strictly increasing: `after` and keyset cursors stay exact even for
 * alerts created in the same millisecond. Plain numbers, not BigInt: two ids
 * per webhook alert, and BigInt arithmetic allocated a value per bit group.
 */
export class IdGenerator {
  private lastTime = 0;
  private tailHigh = 0;
  private tailLow = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Continues after an id already stored (the newest alert id or activity key),
   * so ids stay increasing across a restart even if the clock stepped back.
   */
  seed(latest: string | null | undefined): void {
    const body = latest?.split('_')[1];
    if (!body || body.length !== 26) return;
    const time = decodeNumber(body.slice(0, 10));
    const high = decodeNumber(body.slice(10, 18));
    const low = decodeNumber(body.slice(18));
    const later =
      time > this.lastTime ||
      (time === this.lastTime && (high > this.tailHigh || (high === this.tailHigh && low > this.tailLow)));
    if (later) {
      this.lastTime = time;
      this.tailHigh = high;
      this.tailLow = low;
    }
  }

  next(prefix: string): string {
    let time = Math.floor(this.now());
    if (time <= this.lastTime) {
      time = this.lastTime;
      if (++this.tailLow === HALF) {
        this.tailLow = 0;
        this.tailHigh++;
      }
    } else {
      [this.tailHigh, this.tailLow] = randomTail();
    }
    this.lastTime = time;
    return `${prefix}_${encodeNumber(time, 10)}${encodeNumber(this.tailHigh, 8)}${encodeNumber(this.tailLow, 8)}`;
  }
}

/**
 * The alert id of a Discord message, derived from its snowflake: the time part is
 * the message's creation time and the tail carries the snowflake's low 22 bits
 * (worker, process, increment), so ids follow Discord's message order and the same
 * message always maps to the same id (a reply can name its parent before we store it).
 */
export function alertIdFromSnowflake(snowflake: string): string {
  const s = BigInt(snowflake);
  const time = (s >> 22n) + DISCORD_EPOCH;
  return `alt_${encode(time, 10)}${encode(s & 0x3fffffn, 16)}`;
}

export const ID_PATTERN = /^[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The smallest id `prefix` made at `ms` or later could have: every id made
 * before `ms` sorts below it (the time comes first in the id), so
 * `id < idTimeBound('alt', t)` selects alerts created before t with an index range.
 */
export function idTimeBound(prefix: string, ms: number): string {
  return `${prefix}_${encode(BigInt(Math.max(0, Math.floor(ms))), 10)}`;
}
