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

/**
 * Monotonic, lexicographically sortable ids (ULID layout: 48-bit millisecond
 * time in 10 characters, then 80 bits in 16). Within one millisecond, or if the
 * clock steps back, the 80-bit part is incremented, so ids made by this process
 * are strictly increasing: `after` and keyset cursors stay exact even for
 * alerts created in the same millisecond.
 */
export class IdGenerator {
  private lastTime = 0n;
  private lastTail = 0n;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Continues after an id already stored (the newest alert id or activity key),
   * so ids stay increasing across a restart even if the clock stepped back.
   */
  seed(latest: string | null | undefined): void {
    const body = latest?.split('_')[1];
    if (!body || body.length !== 26) return;
    const time = decode(body.slice(0, 10));
    const tail = decode(body.slice(10));
    if (time > this.lastTime || (time === this.lastTime && tail > this.lastTail)) {
      this.lastTime = time;
      this.lastTail = tail;
    }
  }

  next(prefix: string): string {
    let time = BigInt(this.now());
    if (time <= this.lastTime) {
      time = this.lastTime;
      this.lastTail += 1n;
    } else {
      // Random tail, top bit clear so increments never overflow in practice.
      this.lastTail = BigInt('0x' + randomBytes(10).toString('hex')) >> 1n;
    }
    this.lastTime = time;
    return `${prefix}_${encode(time, 10)}${encode(this.lastTail, 16)}`;
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
