import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The address half of the SSRF guard: which IP addresses an attachment URL may
 * make the service connect to. Only global unicast passes.
 */

/** Decides whether the fetcher may connect to an IP: null = allowed, else the reason it is refused. */
export type AddressPolicy = (ip: string) => string | null;

// Maps, like every table in src/ keyed by a string from outside: an object literal
// would also answer for `constructor` or `__proto__`.
const V4_REASONS: ReadonlyMap<string, string> = new Map(Object.entries({
  unspecified: 'unspecified (0.0.0.0/8)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  as112: 'reserved (AS112)',
  amt: 'reserved (AMT)',
}));

const V6_REASONS: ReadonlyMap<string, string> = new Map(Object.entries({
  unspecified: 'unspecified (::)',
  linkLocal: 'link-local (fe80::/10)',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'private (unique local fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  discard: 'reserved (discard prefix)',
  benchmarking: 'reserved (benchmarking)',
  amt: 'reserved (AMT)',
  as112v6: 'reserved (AS112)',
  deprecatedOrchid: 'reserved (ORCHID)',
  orchid2: 'reserved (ORCHIDv2)',
  droneRemoteIdProtocolEntityTags: 'reserved (DRIP)',
  segmentRouting: 'reserved (segment routing)',
  reserved: 'reserved',
}));

/**
 * The production policy: refuses loopback, private, link-local (cloud metadata
 * 169.254.169.254 included), CGNAT, multicast, unspecified, broadcast and
 * reserved IPv4; ::1, ::, fc00::/7, fe80::/10, multicast and reserved IPv6; and
 * IPv6 forms that embed an IPv4 (mapped, compatible, 6to4, NAT64, Teredo) when the
 * embedded IPv4 is refused (Teredo always).
 */
export const refusedAddressReason: AddressPolicy = (ip) => {
  const host = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // Only canonical literals: net.isIP refuses "0177.0.0.1"-style spellings that
  // ipaddr.js would otherwise read as octal/hex.
  if (net.isIP(host.split('%')[0] ?? '') === 0) return 'not an IP address';
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv6 goes through the WHATWG serialiser first: ipaddr.js reads "::127.0.0.1"
    // as the IPv4-mapped ::ffff:127.0.0.1, the URL parser (like the socket) does not.
    addr = ipaddr.parse(net.isIPv6(host) ? new URL(`http://[${host}]/`).hostname.slice(1, -1) : host);
  } catch {
    return 'not an IP address';
  }
  return addr.kind() === 'ipv4' ? v4Reason(addr as ipaddr.IPv4) : v6Reason(addr as ipaddr.IPv6);
};

function v4Reason(a: ipaddr.IPv4): string | null {
  const range = a.range();
  if (range === 'unicast') return null;
  if (range === 'linkLocal' && a.toString() === '169.254.169.254') return 'link-local (cloud metadata service)';
  return V4_REASONS.get(range) ?? `not public (${range})`;
}

function v6Reason(a: ipaddr.IPv6): string | null {
  if (a.zoneId) return 'scoped (zone id)';
  const p = a.parts;
  const range = a.range();
  const embedded = (hi: number, lo: number) => ipaddr.IPv4.parse(`${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`);
  const viaV4 = (what: string, v4: ipaddr.IPv4) => {
    const r = v4Reason(v4);
    return r === null ? null : `${what} of ${v4.toString()}, which is ${r}`;
  };
  switch (range) {
    case 'ipv4Mapped':
      return viaV4('IPv4-mapped form', a.toIPv4Address());
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return viaV4('IPv4-translated form', embedded(p[6]!, p[7]!));
    case 'rfc6052': // NAT64 64:ff9b::/96 (and the local-use /48)
      if (p[2] !== 0) return 'reserved (local-use NAT64)';
      return viaV4('NAT64 form', embedded(p[6]!, p[7]!));
    case '6to4': // 2002:AABB:CCDD::/48
      return viaV4('6to4 form', embedded(p[1]!, p[2]!));
    case 'teredo':
      return 'Teredo tunnel (embeds an IPv4 that cannot be checked)';
  }
  // IPv4-compatible ::a.b.c.d (deprecated) and anything else in ::/96.
  if (p.slice(0, 6).every((x) => x === 0) && range !== 'loopback' && range !== 'unspecified') {
    return viaV4('IPv4-compatible form', embedded(p[6]!, p[7]!)) ?? 'IPv4-compatible (deprecated)';
  }
  if (range === 'unicast') return null;
  return V6_REASONS.get(range) ?? `not public (${range})`;
}
