import type { DraftLevel } from './command.js';

/**
 * Level from a sender's colour (Discord's embed colour, Slack's attachment
 * colour), by the hue rule: with a saturation of at least 0.25, a hue
 * below 20° or from 330° is error, 20–70° warning, 70–170° success; anything
 * else (blue to magenta, greys, no colour, unreadable) is info. Boundaries are
 * half-open: 20 is warning, 70 is success, 170 is info, 330 is error.
 */
export function levelFromColour(colour: number | string | undefined | null): DraftLevel {
  const rgb = toRgb(colour);
  if (!rgb) return 'info';
  const { hue, saturation } = hsl(rgb);
  if (saturation < 0.25) return 'info';
  if (hue < 20 || hue >= 330) return 'error';
  if (hue < 70) return 'warning';
  if (hue < 170) return 'success';
  return 'info';
}

/** Slack's named attachment colours. */
const SLACK_NAMES: Readonly<Record<string, DraftLevel>> = { danger: 'error', warning: 'warning', good: 'success' };

/** Slack's `color`: one of its three names, or a hex colour (`#36a64f`, `36a64f`, `#f00`). */
export function levelFromSlackColour(colour: string | undefined): DraftLevel {
  if (colour === undefined) return 'info';
  const named = Object.hasOwn(SLACK_NAMES, colour.trim().toLowerCase()) ? SLACK_NAMES[colour.trim().toLowerCase()] : undefined;
  return named ?? levelFromColour(colour);
}

type Rgb = readonly [number, number, number];

/** A 24-bit integer (Discord) or a hex string with or without `#`, 3 or 6 digits (Slack). */
function toRgb(colour: number | string | undefined | null): Rgb | undefined {
  let n: number;
  if (typeof colour === 'number') {
    if (!Number.isInteger(colour) || colour < 0 || colour > 0xffffff) return undefined;
    n = colour;
  } else if (typeof colour === 'string') {
    let hex = colour.trim().replace(/^#/, '').replace(/^0x/i, '');
    if (/^[0-9a-f]{3}$/i.test(hex)) hex = [...hex].map((c) => c + c).join('');
    if (!/^[0-9a-f]{6}$/i.test(hex)) return undefined;
    n = Number.parseInt(hex, 16);
  } else {
    return undefined;
  }
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/**
 * HSL hue in degrees [0, 360) and saturation in [0, 1]. Worked on the 0–255
 * integers and multiplied before dividing, so a colour whose hue is exactly a
 * boundary (such as #323c00 at 70°) lands on it instead of a hair below.
 */
function hsl([r, g, b]: Rgb): { hue: number; saturation: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  if (d === 0) return { hue: 0, saturation: 0 };
  // S = d / (1 - |2L - 1|) with L = (max + min) / 510, rewritten over integers.
  const saturation = d / (255 - Math.abs(max + min - 255));
  let hue: number;
  if (max === r) hue = (60 * (g - b)) / d;
  else if (max === g) hue = (60 * (b - r)) / d + 120;
  else hue = (60 * (r - g)) / d + 240;
  if (hue < 0) hue += 360;
  return { hue, saturation };
}
