import { fileTypeFromBuffer } from 'file-type';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { resolveDeclaredKind, sniffFormat } from '../../src/media/formats.js';
import { refusedAddressReason } from '../../src/lib/ssrf.js';
import * as fx from './fixtures.js';

describe('fixtures', () => {
  it.each(fx.SUPPORTED)('file-type recognises the $name fixture', async ({ bytes }) => {
    expect(await fileTypeFromBuffer(bytes())).toBeDefined();
  });
});

describe('sniffFormat', () => {
  it.each(fx.SUPPORTED)('$name → $mime ($kind)', async ({ bytes, mime, ext, kind }) => {
    expect(await sniffFormat(bytes())).toEqual({ mime, ext, kind, kindCertain: true });
  });

  it.each(fx.REFUSED)('refuses $name', async ({ bytes }) => {
    expect(await sniffFormat(bytes())).toBeNull();
  });

  it('an MP4 whose head shows no track is undecided: video by default, declared audio believed', async () => {
    const s = await sniffFormat(fx.mp4MoovLast());
    expect(s).toMatchObject({ mime: 'video/mp4', kind: 'video', kindCertain: false });
    expect(resolveDeclaredKind(s!, 'audio', 'x')).toEqual({ mime: 'audio/mp4', ext: 'm4a', kind: 'audio' });
    expect(resolveDeclaredKind(s!, 'video', 'x')).toEqual({ mime: 'video/mp4', ext: 'mp4', kind: 'video' });
    expect(() => resolveDeclaredKind(s!, 'image', 'x')).toThrow(AppError);
  });

  it('a declared kind that contradicts certain bytes is a mismatch', async () => {
    const s = (await sniffFormat(fx.png()))!;
    try {
      resolveDeclaredKind(s, 'video', 'attachments[0]');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('attachment-type-mismatch');
      expect((err as AppError).detail).toMatch(/attachments\[0\].*video.*image/);
    }
    const w = (await sniffFormat(fx.webmAudio()))!;
    expect(() => resolveDeclaredKind(w, 'video', 'x')).toThrow(/declared type "video"/);
  });
});

describe('refusedAddressReason', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /metadata/],
    ['169.254.1.1', /link-local/],
    ['100.64.0.1', /carrier-grade/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['224.0.0.1', /multicast/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.1', /reserved/],
    ['198.18.0.1', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['::ffff:127.0.0.1', /IPv4-mapped.*loopback/],
    ['::ffff:7f00:1', /IPv4-mapped.*loopback/],
    ['::ffff:10.0.0.1', /IPv4-mapped.*private/],
    ['::ffff:0:a00:1', /translated.*private/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['fe80::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2002:7f00:1::1', /6to4.*127\.0\.0\.1.*loopback/],
    ['2002:a9fe:a9fe::', /6to4.*metadata/],
    ['64:ff9b::a00:1', /NAT64.*private/],
    ['64:ff9b::7f00:1', /NAT64.*loopback/],
    ['64:ff9b:1::1', /local-use NAT64/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['2001:db8::1', /reserved/],
    ['0177.0.0.1', /not an IP/],
    ['0x7f.1', /not an IP/],
    ['2130706433', /not an IP/],
    ['localhost', /not an IP/],
  ];
  it.each(refused)('refuses %s', (ip, reason) => {
    expect(refusedAddressReason(ip)).toMatch(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2002:808:808::1', '64:ff9b::808:808', '::ffff:8.8.8.8'])(
    'allows public %s',
    (ip) => {
      expect(refusedAddressReason(ip)).toBeNull();
    },
  );
});
