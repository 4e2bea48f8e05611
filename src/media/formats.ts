import { AppError } from '../domain/errors.js';
import { MAX_MEDIA_BYTES, MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from '../domain/media.js';
import { formatBytes } from '../lib/bytes.js';

/**
 * Which attachment formats the service accepts, recognised from the bytes only
 * (never from a declared type, Content-Type or filename). How large each kind
 * may be is the spec's rule, kept with the use cases (src/domain/media.ts).
 */

/** How many leading bytes file-type needs to recognise every supported format. */
const FILE_TYPE_HEAD_BYTES = 4100;

/**
 * How many leading bytes the store buffers before sniffing: file-type's 4100
 * plus room to find the track list of a WebM/MP4 and tell audio from video.
 */
export const SNIFF_BYTES = 64 * 1024;

/** A stored format: the normalised MIME type, the file extension of the key, and the kind. */
export interface MediaFormat {
  mime: string;
  ext: string;
  kind: MediaKind;
}

/**
 * What the bytes say. `kindCertain` is false for an audio/video container
 * (WebM, MP4, Ogg) whose head does not reveal its tracks: `kind` is then the
 * default (video) and a declared audio/video kind is believed.
 */
export interface SniffedFormat extends MediaFormat {
  kindCertain: boolean;
}

/** The served MIME type of every extension a stored key can have. */
const MIME_BY_EXT: Readonly<Record<string, string>> = Object.freeze({
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  weba: 'audio/webm',
  ogg: 'audio/ogg',
});

/** The stored format of a key's extension (its kind is the MIME type's top-level type); null for any other extension. */
export function formatOfExt(ext: string): MediaFormat | null {
  if (!Object.hasOwn(MIME_BY_EXT, ext)) return null;
  const mime = MIME_BY_EXT[ext]!;
  return { ext, mime, kind: mime.slice(0, mime.indexOf('/')) as MediaKind };
}

/** The size cap before the bytes are sniffed: the declared kind's limit, else the largest of all. */
export function limitFor(declared?: MediaKind): number {
  return declared ? MEDIA_LIMITS[declared] : MAX_MEDIA_BYTES;
}

type Container = 'mp4' | 'webm' | 'ogg';

/** Extension of each container per kind: the key's extension says audio or video. */
const CONTAINER_EXT: Record<Container, Record<'audio' | 'video', string>> = {
  mp4: { video: 'mp4', audio: 'm4a' },
  webm: { video: 'webm', audio: 'weba' },
  ogg: { video: 'ogv', audio: 'ogg' },
};

/**
 * file-type's extension → what we store. `kind: null` means "container, decide
 * from tracks". A Map: the key comes from the file's bytes, and an object
 * literal would also answer for `constructor`.
 */
type FileTypeAnswer = { ext: string; kind: MediaKind } | { container: Container; kind: MediaKind | null };
const stored = (kind: MediaKind, exts: string[]) => exts.map((ext): [string, FileTypeAnswer] => [ext, { ext, kind }]);
const inContainer = (container: Container, kind: MediaKind | null, exts: string[]) =>
  exts.map((ext): [string, FileTypeAnswer] => [ext, { container, kind }]);
const FROM_FILE_TYPE: ReadonlyMap<string, FileTypeAnswer> = new Map([
  ...stored('image', ['png', 'jpg', 'gif', 'webp', 'avif']),
  ...stored('audio', ['mp3', 'wav']),
  // ISO BMFF: generic brands say nothing about the tracks; M4A/M4B/M4V brands do.
  ...inContainer('mp4', null, ['mp4']),
  ...inContainer('mp4', 'video', ['m4v']),
  ...inContainer('mp4', 'audio', ['m4a', 'm4b', 'f4a']),
  // file-type calls every WebM video/webm; the track list decides.
  ...inContainer('webm', null, ['webm']),
  // Ogg: file-type reads the first stream's codec.
  ...inContainer('ogg', 'audio', ['opus', 'ogg', 'oga', 'spx']),
  ...inContainer('ogg', 'video', ['ogv', 'ogm']),
  ...inContainer('ogg', null, ['ogx']),
]);

/** Human names of the accepted formats, for error messages and the problem page. */
export const SUPPORTED_FORMATS_TEXT = 'PNG, JPEG, GIF, WebP, AVIF, MP4, WebM, MP3, WAV, M4A or Ogg';

/**
 * True when the head is text markup (SVG, XML, HTML): such files are refused
 * whatever they claim to be, because a browser may run scripts in them.
 */
function looksLikeMarkup(head: Uint8Array): boolean {
  let text: string;
  if (head[0] === 0xfe && head[1] === 0xff) text = decodeUtf16(head.subarray(2, 2050), false);
  else if (head[0] === 0xff && head[1] === 0xfe) text = decodeUtf16(head.subarray(2, 2050), true);
  else {
    const start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    text = Buffer.from(head.subarray(start, start + 1024)).toString('latin1');
  }
  // UTF-16 without BOM: every other byte is NUL.
  if (head.length >= 4 && ((head[0] === 0 && head[1] === 0x3c) || (head[0] === 0x3c && head[1] === 0))) return true;
  // NUL is what UTF-16 text without a BOM has between its ASCII bytes: matching it is the point.
  // eslint-disable-next-line no-control-regex
  return /^[\s\u0000]*</.test(text);
}

function decodeUtf16(bytes: Uint8Array, littleEndian: boolean): string {
  let out = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out += String.fromCharCode(littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
  }
  return out;
}

/**
 * Recognises a supported format from the first bytes of a file (pass at least
 * FILE_TYPE_HEAD_BYTES, ideally SNIFF_BYTES, or the whole file when smaller).
 * Returns null for anything unsupported, markup always included.
 */
/** file-type (and its tokenizers), loaded at the first file sniffed: a service that never receives media never loads it. */
let fileType: Promise<typeof import('file-type')> | undefined;

export async function sniffFormat(bytes: Uint8Array): Promise<SniffedFormat | null> {
  const head = bytes.subarray(0, SNIFF_BYTES); // the same answer whether given a head or a whole file
  if (head.length === 0 || looksLikeMarkup(head)) return null;
  const { fileTypeFromBuffer } = await (fileType ??= import('file-type'));
  const ft = await fileTypeFromBuffer(head.subarray(0, FILE_TYPE_HEAD_BYTES)).catch(() => undefined);
  if (!ft) return null;
  const entry = FROM_FILE_TYPE.get(ft.ext);
  if (!entry) return null;
  if ('ext' in entry) {
    if (entry.ext === 'png' && !isPlausiblePng(head)) return null;
    return { ...formatOfExt(entry.ext)!, kindCertain: true };
  }
  let kind = entry.kind;
  if (kind === null) {
    kind = entry.container === 'webm' ? webmTrackKind(head) : entry.container === 'mp4' ? mp4TrackKind(head) : null;
  }
  if (kind === 'image') return null;
  const certain = kind !== null;
  const k = kind ?? 'video';
  return { ...formatOfExt(CONTAINER_EXT[entry.container][k])!, kindCertain: certain };
}

/**
 * Applies a declared kind to what the bytes say: a contradiction is an
 * AppError('attachment-type-mismatch'); an undecided container takes the
 * declared audio/video kind.
 */
export function resolveDeclaredKind(sniffed: SniffedFormat, declared: MediaKind | undefined, label: string): MediaFormat {
  const { kindCertain, ...format } = sniffed;
  if (!declared || declared === format.kind) return format;
  if (!kindCertain && declared !== 'image') {
    const container = (Object.keys(CONTAINER_EXT) as Container[]).find((c) => CONTAINER_EXT[c].video === format.ext)!;
    return formatOfExt(CONTAINER_EXT[container][declared])!;
  }
  throw new AppError(
    'attachment-type-mismatch',
    `${label}: declared type "${declared}" but the content is ${format.kind} (${format.mime})`,
  );
}

/** The refusal for bytes sniffFormat rejected, with a reason the sender can act on. */
export function unsupportedError(head: Uint8Array, label: string): AppError {
  const why =
    head.length === 0
      ? 'the file is empty'
      : looksLikeMarkup(head)
        ? 'SVG, XML and HTML files are not accepted'
        : `the content is not ${SUPPORTED_FORMATS_TEXT}`;
  return new AppError('unsupported-attachment-type', `${label}: ${why}`);
}

/** The size refusal for a kind, naming the file and the limit. */
export function tooLargeError(kind: MediaKind, label: string, limit = MEDIA_LIMITS[kind]): AppError {
  return new AppError('attachment-too-large', `${label}: larger than the ${formatBytes(limit)} limit for ${kindPlural(kind)}`);
}

const kindPlural = (kind: MediaKind) => (kind === 'audio' ? 'audio' : `${kind}s`);

/** Every kind's limit as one phrase ("images 10 MiB, videos 50 MiB and audio 25 MiB"), for pages and messages. */
export function mediaLimitsText(): string {
  const parts = MEDIA_KINDS.map((k) => `${kindPlural(k)} ${formatBytes(MEDIA_LIMITS[k])}`);
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** A PNG signature must be followed by the IHDR chunk (rejects "PNG magic + SVG" polyglots). */
function isPlausiblePng(head: Uint8Array): boolean {
  return head.length >= 16 && Buffer.from(head.subarray(12, 16)).toString('latin1') === 'IHDR';
}

/**
 * MP4: the `hdlr` boxes of the tracks name their handler (`vide`, `soun`).
 * Returns null when the head holds no track handler (moov at the end).
 */
function mp4TrackKind(head: Uint8Array): 'audio' | 'video' | null {
  const buf = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  let sawAudio = false;
  for (let i = buf.indexOf('hdlr'); i !== -1 && i + 16 <= buf.length; i = buf.indexOf('hdlr', i + 4)) {
    const handler = buf.toString('latin1', i + 12, i + 16);
    if (handler === 'vide') return 'video';
    if (handler === 'soun') sawAudio = true;
  }
  return sawAudio ? 'audio' : null;
}

const EBML_SEGMENT = 0x18538067;
const EBML_TRACKS = 0x1654ae6b;
const EBML_TRACK_ENTRY = 0xae;
const EBML_TRACK_TYPE = 0x83;
const EBML_CLUSTER = 0x1f43b675;

/** WebM: walks EBML → Segment → Tracks → TrackEntry → TrackType (1 video, 2 audio). */
function webmTrackKind(head: Uint8Array): 'audio' | 'video' | null {
  const types: number[] = [];
  const walk = (start: number, end: number, depth: number): boolean => {
    let pos = start;
    while (pos < end) {
      const id = readVint(head, pos, false);
      if (!id) return false;
      const size = readVint(head, pos + id.length, true);
      if (!size) return false;
      const dataStart = pos + id.length + size.length;
      const dataEnd = size.unknown ? end : Math.min(end, dataStart + size.value);
      if (id.value === EBML_CLUSTER) return false; // media data: the track list came before or not at all
      if (depth === 0 && id.value === EBML_SEGMENT) return walk(dataStart, dataEnd, 1);
      if (depth === 1 && id.value === EBML_TRACKS) walk(dataStart, dataEnd, 2);
      if (depth === 2 && id.value === EBML_TRACK_ENTRY) walk(dataStart, dataEnd, 3);
      if (depth === 3 && id.value === EBML_TRACK_TYPE && size.value >= 1 && dataStart + size.value <= head.length) {
        types.push(head[dataStart + size.value - 1]!);
      }
      if (size.unknown) return false;
      pos = dataStart + size.value;
    }
    return true;
  };
  walk(0, head.length, 0);
  if (types.includes(1)) return 'video';
  if (types.includes(2)) return 'audio';
  return null;
}

/** EBML variable-length integer; `isSize` strips the length marker and detects "unknown size". */
function readVint(buf: Uint8Array, pos: number, isSize: boolean): { value: number; length: number; unknown: boolean } | null {
  const first = buf[pos];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  if (length > 8 || pos + length > buf.length) return null;
  let value = isSize ? first & (0xff >> length) : first;
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const b = buf[pos + i]!;
    value = value * 256 + b;
    if (b !== 0xff) allOnes = false;
  }
  return { value, length, unknown: isSize && allOnes };
}
