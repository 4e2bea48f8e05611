import { deflateSync } from 'node:zlib';

/**
 * Minimal but structurally valid media files, built in code so the tests need no
 * binary fixtures. Each one is recognised by file-type (checked in formats.test.ts).
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u16le = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const ascii = (s: string) => Buffer.from(s, 'latin1');

function pngChunk(type: string, data: Buffer): Buffer {
  const td = Buffer.concat([ascii(type), data]);
  return Buffer.concat([u32be(data.length), td, u32be(crc32(td))]);
}

/** 1×1 RGBA PNG; `seed` changes the pixel so tests can make distinct files. */
export function png(seed = 0): Buffer {
  const ihdr = Buffer.concat([u32be(1), u32be(1), Buffer.from([8, 6, 0, 0, 0])]);
  const raw = Buffer.from([0, seed & 0xff, (seed >> 8) & 0xff, (seed >> 16) & 0xff, 0xff]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Baseline JPEG header (SOI + JFIF APP0 + EOI). */
export function jpeg(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    ascii('JFIF\0'),
    Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** The classic 1×1 transparent GIF. */
export function gif(): Buffer {
  return Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
}

/** 1×1 lossless WebP (RIFF/WEBP/VP8L). */
export function webp(): Buffer {
  const vp8l = Buffer.from([0x2f, 0x00, 0x00, 0x00, 0x00, 0x88, 0x88, 0x08, 0x08]);
  const chunk = Buffer.concat([ascii('VP8L'), u32le(vp8l.length), vp8l, Buffer.alloc(vp8l.length % 2)]);
  return Buffer.concat([ascii('RIFF'), u32le(4 + chunk.length), ascii('WEBP'), chunk]);
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32be(8 + body.length), ascii(type), body]);
}

function ftyp(major: string, ...compatible: string[]): Buffer {
  return box('ftyp', ascii(major), u32be(0), ...compatible.map(ascii));
}

/** A track handler box (`vide` or `soun`) inside moov/trak/mdia. */
function trak(handler: 'vide' | 'soun'): Buffer {
  const hdlr = box('hdlr', u32be(0), u32be(0), ascii(handler), Buffer.alloc(12), ascii('handler\0'));
  return box('trak', box('mdia', hdlr));
}

/** AVIF: ftyp with major brand avif. */
export function avif(): Buffer {
  return Buffer.concat([ftyp('avif', 'avif', 'mif1', 'miaf'), box('meta', u32be(0))]);
}

/** MP4 (ftyp isom) with a video track handler. */
export function mp4(): Buffer {
  return Buffer.concat([ftyp('isom', 'isom', 'iso2', 'avc1', 'mp41'), box('moov', trak('vide'), trak('soun')), box('mdat')]);
}

/** MP4 (ftyp isom) whose only track is sound: stored as audio (m4a). */
export function mp4AudioOnly(): Buffer {
  return Buffer.concat([ftyp('isom', 'isom', 'mp41'), box('moov', trak('soun')), box('mdat')]);
}

/** MP4 (ftyp isom) with the moov at the end: the head does not tell audio from video. */
export function mp4MoovLast(): Buffer {
  return Buffer.concat([ftyp('isom', 'isom', 'mp41'), box('mdat', Buffer.alloc(70_000)), box('moov', trak('soun'))]);
}

/** M4A: ftyp with brand "M4A ". */
export function m4a(): Buffer {
  return Buffer.concat([ftyp('M4A ', 'M4A ', 'mp42', 'isom'), box('moov', trak('soun')), box('mdat')]);
}

function ebml(id: number[], data: Buffer): Buffer {
  // Size as an 8-byte vint (0x01 marker + 7 bytes), valid for any small size.
  const size = Buffer.alloc(8);
  size[0] = 0x01;
  size.writeUIntBE(data.length, 2, 6);
  return Buffer.concat([Buffer.from(id), size, data]);
}

function webmFile(trackType: 1 | 2 | null, codec: string): Buffer {
  const header = ebml([0x1a, 0x45, 0xdf, 0xa3], Buffer.concat([
    ebml([0x42, 0x86], Buffer.from([1])), // EBMLVersion
    ebml([0x42, 0xf7], Buffer.from([1])), // EBMLReadVersion
    ebml([0x42, 0xf2], Buffer.from([4])), // EBMLMaxIDLength
    ebml([0x42, 0xf3], Buffer.from([8])), // EBMLMaxSizeLength
    ebml([0x42, 0x82], ascii('webm')), // DocType
    ebml([0x42, 0x87], Buffer.from([4])), // DocTypeVersion
    ebml([0x42, 0x85], Buffer.from([2])), // DocTypeReadVersion
  ]));
  const info = ebml([0x15, 0x49, 0xa9, 0x66], ebml([0x2a, 0xd7, 0xb1], Buffer.from([0x0f, 0x42, 0x40]))); // TimecodeScale
  const entry = ebml([0xae], Buffer.concat([
    ebml([0xd7], Buffer.from([1])), // TrackNumber
    ...(trackType === null ? [] : [ebml([0x83], Buffer.from([trackType]))]), // TrackType
    ebml([0x86], ascii(codec)), // CodecID
  ]));
  const tracks = ebml([0x16, 0x54, 0xae, 0x6b], entry);
  const cluster = ebml([0x1f, 0x43, 0xb6, 0x75], ebml([0xe7], Buffer.from([0])));
  return Buffer.concat([header, ebml([0x18, 0x53, 0x80, 0x67], Buffer.concat([info, tracks, cluster]))]);
}

/** WebM with a VP8 video track. */
export function webm(): Buffer {
  return webmFile(1, 'V_VP8');
}

/** WebM whose only track is Opus audio: stored as audio/webm. */
export function webmAudio(): Buffer {
  return webmFile(2, 'A_OPUS');
}

/** MP3: ID3v2 tag followed by an MPEG-1 Layer III frame header. */
export function mp3(): Buffer {
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
  return Buffer.concat([ascii('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), frame]);
}

/** MP3 without a tag: starts with the frame sync. */
export function mp3FrameOnly(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
}

/** WAV: RIFF/WAVE, PCM 8 kHz mono 8-bit, a few samples. */
export function wav(): Buffer {
  const fmt = Buffer.concat([u16le(1), u16le(1), u32le(8000), u32le(8000), u16le(1), u16le(8)]);
  const samples = Buffer.alloc(16, 0x80);
  const body = Buffer.concat([ascii('WAVE'), ascii('fmt '), u32le(fmt.length), fmt, ascii('data'), u32le(samples.length), samples]);
  return Buffer.concat([ascii('RIFF'), u32le(body.length), body]);
}

function oggPage(packet: Buffer): Buffer {
  const header = Buffer.concat([
    ascii('OggS'),
    Buffer.from([0, 0x02]), // version, flags: beginning of stream
    Buffer.alloc(8), // granule position
    u32le(0x1234), // serial
    u32le(0), // page sequence
    u32le(0), // checksum (not verified by sniffers)
    Buffer.from([1, packet.length]), // one segment
  ]);
  return Buffer.concat([header, packet]);
}

/** Ogg Opus (OpusHead identification packet). */
export function oggOpus(): Buffer {
  return oggPage(Buffer.concat([ascii('OpusHead'), Buffer.from([1, 1, 0x38, 0x01]), u32le(48000), Buffer.from([0, 0, 0])]));
}

/** Ogg Vorbis (\x01vorbis identification packet). */
export function oggVorbis(): Buffer {
  return oggPage(Buffer.concat([Buffer.from([1]), ascii('vorbis'), u32le(0), Buffer.from([1]), u32le(44100), Buffer.alloc(13)]));
}

/** Ogg Theora (\x80theora): video. */
export function oggTheora(): Buffer {
  return oggPage(Buffer.concat([Buffer.from([0x80]), ascii('theora'), Buffer.from([3, 2, 1]), Buffer.alloc(35)]));
}

/** A plain SVG (with a script, as an attacker would send it). */
export function svg(): Buffer {
  return ascii('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>');
}

/** SVG with an XML declaration and a UTF-8 BOM. */
export function svgWithXmlDecl(): Buffer {
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ascii('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')]);
}

/** The same SVG bytes, as a sender would name it `cat.png` (the name is never looked at). */
export const svgRenamedPng = { name: 'cat.png', bytes: svg() };

/** A PNG signature followed by SVG markup: claims to be a PNG but is not one. */
export function pngMagicSvg(): Buffer {
  return Buffer.concat([png().subarray(0, 8), svg()]);
}

/** An HTML page. */
export function html(): Buffer {
  return ascii('<!doctype html><html><body><script>alert(1)</script></body></html>');
}

/** Every supported format: name, bytes, expected stored mime/ext/kind. */
export const SUPPORTED: { name: string; bytes: () => Buffer; mime: string; ext: string; kind: 'image' | 'video' | 'audio' }[] = [
  { name: 'PNG', bytes: png, mime: 'image/png', ext: 'png', kind: 'image' },
  { name: 'JPEG', bytes: jpeg, mime: 'image/jpeg', ext: 'jpg', kind: 'image' },
  { name: 'GIF', bytes: gif, mime: 'image/gif', ext: 'gif', kind: 'image' },
  { name: 'WebP', bytes: webp, mime: 'image/webp', ext: 'webp', kind: 'image' },
  { name: 'AVIF', bytes: avif, mime: 'image/avif', ext: 'avif', kind: 'image' },
  { name: 'MP4', bytes: mp4, mime: 'video/mp4', ext: 'mp4', kind: 'video' },
  { name: 'MP4 audio-only', bytes: mp4AudioOnly, mime: 'audio/mp4', ext: 'm4a', kind: 'audio' },
  { name: 'WebM', bytes: webm, mime: 'video/webm', ext: 'webm', kind: 'video' },
  { name: 'WebM audio-only', bytes: webmAudio, mime: 'audio/webm', ext: 'weba', kind: 'audio' },
  { name: 'MP3 (ID3)', bytes: mp3, mime: 'audio/mpeg', ext: 'mp3', kind: 'audio' },
  { name: 'MP3 (frame sync)', bytes: mp3FrameOnly, mime: 'audio/mpeg', ext: 'mp3', kind: 'audio' },
  { name: 'WAV', bytes: wav, mime: 'audio/wav', ext: 'wav', kind: 'audio' },
  { name: 'M4A', bytes: m4a, mime: 'audio/mp4', ext: 'm4a', kind: 'audio' },
  { name: 'Ogg Opus', bytes: oggOpus, mime: 'audio/ogg', ext: 'ogg', kind: 'audio' },
  { name: 'Ogg Vorbis', bytes: oggVorbis, mime: 'audio/ogg', ext: 'ogg', kind: 'audio' },
  { name: 'Ogg Theora', bytes: oggTheora, mime: 'video/ogg', ext: 'ogv', kind: 'video' },
];

/** Refused inputs: name and bytes. */
export const REFUSED: { name: string; bytes: () => Buffer }[] = [
  { name: 'SVG', bytes: svg },
  { name: 'SVG with XML declaration and BOM', bytes: svgWithXmlDecl },
  { name: 'SVG renamed .png', bytes: () => svgRenamedPng.bytes },
  { name: 'PNG magic followed by SVG', bytes: pngMagicSvg },
  { name: 'HTML', bytes: html },
  { name: 'plain text', bytes: () => ascii('hello world, not an image') },
  { name: 'PDF', bytes: () => ascii('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n') },
  { name: 'ZIP', bytes: () => Buffer.concat([Buffer.from([0x50, 0x4b, 0x05, 0x06]), Buffer.alloc(18)]) },
  { name: 'empty', bytes: () => Buffer.alloc(0) },
];

/** Chunks of `total` bytes starting with `head`, counting what the consumer pulled. Reuses one buffer: no allocation per chunk. */
export function countingStream(head: Buffer, total: number, chunkSize = 64 * 1024) {
  const counter = { pulled: 0, done: false };
  const zeros = Buffer.alloc(chunkSize);
  async function* gen(): AsyncGenerator<Uint8Array> {
    try {
      counter.pulled += head.length;
      yield head;
      while (counter.pulled < total) {
        const n = Math.min(chunkSize, total - counter.pulled);
        counter.pulled += n;
        yield n === chunkSize ? zeros : zeros.subarray(0, n);
      }
    } finally {
      counter.done = true;
    }
  }
  return { body: gen(), counter };
}
