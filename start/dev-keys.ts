/**
 * Development API keys: one per scope, created on first start. Their secrets are kept only in
 * .data/stack.json (a development convenience); if that file is lost, fresh keys are made.
 */
import { createApiKey, type KeyScope } from '../db/queries/api-keys';
import type { Database } from '../db/pool';

export type DevKeys = Record<KeyScope, string>;

const SCOPES: KeyScope[] = ['read', 'write', 'admin'];

/** The dev keys recorded in `known` if they are still active, otherwise newly created ones. */
export async function ensureDevKeys(db: Database, known: Partial<DevKeys> | undefined, verify: (secret: string) => Promise<boolean>): Promise<DevKeys> {
  const keys: Partial<DevKeys> = {};
  for (const scope of SCOPES) {
    const secret = known?.[scope];
    if (secret && (await verify(secret))) {
      keys[scope] = secret;
      continue;
    }
    const created = await createApiKey(db, { name: `development ${scope} key`, scope });
    keys[scope] = created.secret;
  }
  return keys as DevKeys;
}

