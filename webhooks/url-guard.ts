/**
 * The webhook URL guard (SSRF): a webhook goes only to a public address unless the operator allows a network
 * (`WEBHOOK_ALLOWED_NETWORKS`). Checked when an endpoint is registered or enabled, and again at each delivery by
 * the connection's own DNS lookup, so a name that later resolves inward (DNS rebinding) is refused too.
 */
import type { LookupFunction } from 'node:net';

const PENDING = 'issue 37 contract: implemented by the delivery work package';

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

/** Whether `raw` may be a webhook URL under `policy`, resolving its host with `resolve` (default: the system's DNS). */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy, resolve?: Resolver): Promise<UrlVerdict> {
  void [raw, policy, resolve];
  throw new Error(PENDING);
}

/** A `lookup` for delivery sockets that fails on any forbidden address, so a connection reaches only a checked one. */
export function guardedLookup(policy: UrlPolicy, resolve?: Resolver): LookupFunction {
  void [policy, resolve];
  throw new Error(PENDING);
}
