import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a user's upstream may point (DESIGN §12, SSRF): the proxy calls whatever base URL a user
 * sets, with the server's network position. Loopback, private, link-local (the clouds' metadata
 * service at 169.254.169.254, fd00:ec2::254), shared, multicast and reserved ranges are refused
 * unless the admin allows them (OPENPROGRAM_PROXY_ALLOW_PRIVATE=1) or the URL is the instance's
 * own default (OPENPROGRAM_PROXY_ANTHROPIC_URL / _OPENAI_URL, set by the admin).
 */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // IPv4-compatible, `::` and `::1` among them (refused before the list is read)
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

/** An IPv6 address as its 16 bytes, whatever the spelling (`::`, a dotted tail, a zone); null if it is none. */
function ipv6Bytes(address: string): Uint8Array | null {
  const text = address.replace(/%.*$/, '');
  let tail: number[] = [];
  let head = text;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted.slice(2, 6).map(Number);
    if (octets.some((octet) => octet > 255)) return null;
    tail = [(octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!];
    // `::1.2.3.4` → `::` + the two groups; `1::2:1.2.3.4` → `1::2:` + them
    head = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    return groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group)) ? groups.map((group) => parseInt(group, 16)) : null;
  };
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!left || !right) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  const groups = [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 255;
  });
  return bytes;
}

const zeros = (bytes: Uint8Array, from: number, to: number): boolean => bytes.subarray(from, to).every((byte) => byte === 0);
const v4Of = (bytes: Uint8Array): string => Array.from(bytes.subarray(12, 16)).join('.');

/**
 * How an IPv6 address is judged, from its bytes so that no spelling slips past: the IPv4-compatible
 * range `::/96` (`::127.0.0.1`, `::7f00:1`, deprecated, and `::`/`::1`) is refused whole; an address
 * that carries an IPv4 one (mapped `::ffff:0:0/96`, translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`)
 * is judged by that IPv4 address; anything else by the IPv6 ranges.
 */
function ipv6Verdict(address: string): { internal: true } | { ipv4: string } | { ipv6: string } {
  const bytes = ipv6Bytes(address);
  if (!bytes) return { internal: true };
  if (zeros(bytes, 0, 12)) return { internal: true };
  const mapped = zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const translated = zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0;
  const nat64 = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 4, 12);
  if (mapped || translated || nat64) return { ipv4: v4Of(bytes) };
  const groups = Array.from({ length: 8 }, (_, index) => ((bytes[index * 2]! << 8) | bytes[index * 2 + 1]!).toString(16));
  return { ipv6: groups.join(':') };
}

/** Whether an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const verdict = ipv6Verdict(address);
  if ('internal' in verdict) return true;
  if ('ipv4' in verdict) return INTERNAL.check(verdict.ipv4, 'ipv4');
  return INTERNAL.check(verdict.ipv6, 'ipv6');
}

/** A URL's host as an address or a name: `[::1]` → `::1`. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Whether the admin lets this base URL reach internal addresses: the switch, or the instance's own defaults. */
export function internalAllowed(baseUrl: string, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (env['OPENPROGRAM_PROXY_ALLOW_PRIVATE'] === '1') return true;
  const own = [env['OPENPROGRAM_PROXY_ANTHROPIC_URL'], env['OPENPROGRAM_PROXY_OPENAI_URL']].map((value) => value?.trim().replace(/\/+$/, '') ?? '').filter((value) => value !== '');
  const normalized = baseUrl.trim().replace(/\/+$/, '');
  return own.some((value) => normalized === value || normalized.startsWith(`${value}/`));
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((entry) => entry.address)))));

/**
 * Why a user may not set `baseUrl` as an upstream, or null when it may be set: its host is
 * resolved and every address it has is checked (a name with one public and one private address
 * is refused). A name that does not resolve is refused too: it could be made to resolve later.
 */
export async function refuseInternalUpstream(baseUrl: string, options: { env?: Readonly<Record<string, string | undefined>>; resolve?: Resolver } = {}): Promise<string | null> {
  if (internalAllowed(baseUrl, options.env)) return null;
  const url = new URL(baseUrl);
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch (error) {
      return `the host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
  }
  const internal = addresses.find(isInternalAddress);
  if (internal !== undefined || addresses.length === 0) {
    return `${host} is ${internal && internal !== host ? `at ${internal}, ` : ''}a loopback, private or link-local address: an upstream must be on the public internet (an admin can allow internal upstreams with OPENPROGRAM_PROXY_ALLOW_PRIVATE=1)`;
  }
  return null;
}

export class InternalAddressError extends Error {
  readonly code = 'EINTERNALADDRESS';
}

/**
 * A `lookup` for http.request that refuses internal addresses at connect time, so a name that
 * passed the check in Settings and now resolves elsewhere (DNS rebinding) is still refused.
 * IP literals never reach a lookup: check them with isInternalAddress before connecting.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  const all = (options as LookupAllOptions).all === true;
  dnsLookup(hostname, { ...(options as LookupOneOptions), all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, all ? [] : '', 0);
    const internal = addresses.find((entry) => isInternalAddress(entry.address));
    if (internal || addresses.length === 0) {
      return callback(new InternalAddressError(`${hostname} resolves to ${internal?.address ?? 'nothing'}, an internal address`), all ? [] : '', 0);
    }
    if (all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
