/**
 * The client address of a request, for what counts per address (the failed-authentication throttle): the peer's
 * address, unless the peer is a trusted proxy (TRUSTED_PROXIES: addresses or CIDR ranges); then X-Forwarded-For read
 * from the right, skipping the trusted proxies it passed through, to the first address no trusted proxy vouches for
 * beyond. A header from anyone else is ignored, so a client cannot pick the address it is counted under.
 */
import { BlockList, isIP } from 'node:net';

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) as `10.0.0.1`. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A function answering the client address of a peer and its X-Forwarded-For header (empty when absent). */
export function clientAddressOf(trustedProxies: readonly string[]): (peer: string, forwardedFor: string) => string {
  if (trustedProxies.length === 0) return (peer) => plain(peer);
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(prefix), family);
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (peer, forwardedFor) => {
    let client = plain(peer);
    if (!isTrusted(client)) return client;
    const hops = forwardedFor.split(',').map((hop) => plain(hop.trim())).filter(Boolean);
    for (let index = hops.length - 1; index >= 0; index--) {
      client = hops[index]!;
      if (!isTrusted(client)) return client;
    }
    return client;
  };
}
