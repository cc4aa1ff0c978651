/**
 * The webhook URL guard (SSRF): a webhook goes only to a public address unless the operator allows a network
 * (`WEBHOOK_ALLOWED_NETWORKS`). Checked when an endpoint is registered or enabled, and again at each delivery by
 * the connection's own DNS lookup, so a name that later resolves inward (DNS rebinding) is refused too.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface UrlPolicy {
  /** IPs or CIDR ranges a webhook may reach although they are internal. */
  allowedNetworks: readonly string[];
  /** Plain `http` URLs allowed (local receivers); otherwise `https` only. */
  allowHttp: boolean;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export type UrlVerdict =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; code: 'INVALID_WEBHOOK_URL' | 'WEBHOOK_URL_FORBIDDEN'; reason: string };

/** Not public: this network, private, shared (CGNAT), loopback, link-local, IETF, documentation, benchmarking, multicast, reserved. */
const FORBIDDEN_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
];
/** Unspecified and IPv4-compatible, loopback, unique-local, link-local, multicast, documentation, NAT64, discard. */
const FORBIDDEN_V6 = ['::/96', 'fc00::/7', 'fe80::/10', 'ff00::/8', '2001:db8::/32', '64:ff9b::/96', '100::/64'];

const MAX_URL_LENGTH = 2_048;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** `::ffff:127.0.0.1` (or its hex form `::ffff:7f00:1`) as `127.0.0.1`; any other address as it is. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const normal = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(normal);
  if (!mapped) return normal;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function blockListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(unmapped(address), isIP(unmapped(address)) === 6 ? 'ipv6' : 'ipv4');
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

const forbidden = blockListOf([...FORBIDDEN_V4, ...FORBIDDEN_V6]);

/** A function telling why an address may not be reached under `policy`, or null when it may. */
export function addressJudge(policy: UrlPolicy): (address: string) => string | null {
  const allowed = blockListOf(policy.allowedNetworks);
  return (raw) => {
    const address = unmapped(raw);
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0) return `${raw} is not an IP address`;
    if (!forbidden.check(address, family) || allowed.check(address, family)) return null;
    return `${address} is not a public address (an operator can allow its network with WEBHOOK_ALLOWED_NETWORKS)`;
  };
}

/** `localhost`, `*.localhost` (RFC 6761), with or without the root's trailing dot. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The host of a URL as a resolver takes it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Whether `raw` may be a webhook URL under `policy`, resolving its host with `resolve` (default: the system's DNS). */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<UrlVerdict> {
  const invalid = (reason: string): UrlVerdict => ({ ok: false, code: 'INVALID_WEBHOOK_URL', reason });
  if (raw.length > MAX_URL_LENGTH) return invalid(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid('not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return invalid(policy.allowHttp ? 'the scheme must be https or http' : 'the scheme must be https');
  }
  if (url.username !== '' || url.password !== '') return invalid('the URL may not carry credentials');
  const host = hostOf(url);
  if (isLocalhostName(host)) {
    return { ok: false, code: 'WEBHOOK_URL_FORBIDDEN', reason: `${host} names this machine` };
  }
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : (await resolve(host)).map((entry) => entry.address);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return invalid(`${host} does not resolve`);
  const judge = addressJudge(policy);
  for (const address of addresses) {
    const reason = judge(address);
    if (reason !== null) return { ok: false, code: 'WEBHOOK_URL_FORBIDDEN', reason };
  }
  return { ok: true, url, addresses };
}

/** The error a guarded lookup fails with: the connection is never opened. */
export class WebhookAddressRefused extends Error {
  override readonly name = 'WebhookAddressRefused';
  readonly code = 'WEBHOOK_URL_FORBIDDEN';
}

/**
 * A `lookup` for delivery sockets that fails on any forbidden address, so a connection reaches only a checked one.
 * Node does not look up an IP literal: check such a host with `addressJudge` before connecting.
 */
export function guardedLookup(policy: UrlPolicy, resolve: Resolver = systemResolver): LookupFunction {
  const judge = addressJudge(policy);
  const checkedAddresses = async (host: string, family: number) => {
    if (isLocalhostName(host)) throw new WebhookAddressRefused(`${host} names this machine`);
    const entries = isIP(host) !== 0 ? [{ address: host, family: isIP(host) as 4 | 6 }] : await resolve(host);
    const refusal = entries.map((entry) => judge(entry.address)).find((reason) => reason !== null);
    if (refusal !== undefined) throw new WebhookAddressRefused(refusal);
    const wanted = entries.filter((entry) => family === 0 || entry.family === family);
    if (wanted.length === 0) throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' });
    return wanted;
  };
  return (hostname, options, callback) => {
    const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    checkedAddresses(host, family).then(
      (entries) => {
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
