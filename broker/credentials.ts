/** Fresh random basic-auth credentials for the sandbox (development stacks, tests). */
import { randomBytes } from 'node:crypto';
import type { Credential } from './queries/credentials';

/** A key `<prefix>_<16 hex>` and a 32-byte base64url secret. */
export function newBrokerCredential(prefix = 'bk'): Credential {
  return { key: `${prefix}_${randomBytes(8).toString('hex')}`, secret: randomBytes(32).toString('base64url') };
}
