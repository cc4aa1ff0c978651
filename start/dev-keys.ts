/**
 * Development API keys: one per scope, created on first start and marked as development keys. Their secrets are kept
 * only in .data/stack.json (a development convenience); if that file is lost, fresh keys are made. `npm start` makes
 * them on its embedded PostgreSQL, and on DATABASE_URL only when DEVELOPMENT_KEYS=true — refused when that database
 * holds active keys that are not development keys (a database in real use).
 */
import { countActiveNonDevelopmentKeys, createApiKey, type KeyScope } from '../db/queries/api-keys';
import type { Database } from '../db/pool';

export type DevKeys = Record<KeyScope, string>;

const SCOPES: KeyScope[] = ['read', 'write', 'admin'];

/** Whether `npm start` makes development keys (and the other development extras): embedded PostgreSQL, or asked for. */
export function wantsDevelopmentKeys(settings: { DATABASE_URL?: string; DEVELOPMENT_KEYS: boolean }): boolean {
  return settings.DATABASE_URL === undefined || settings.DEVELOPMENT_KEYS;
}

/** Throws a clear error when the database holds keys that are not development keys. */
export async function refuseDevKeysBesideRealOnes(db: Database): Promise<void> {
  const real = await countActiveNonDevelopmentKeys(db);
  if (real > 0) {
    throw new Error(
      `DEVELOPMENT_KEYS=true refused: the database at DATABASE_URL holds active API keys that are not development keys (${real}); ` +
        'development keys (printed, kept in .data/stack.json) do not belong beside them. ' +
        'Unset DEVELOPMENT_KEYS and create keys with `npm run keys -- create --scope …`.',
    );
  }
}

/** The dev keys recorded in `known` if they are still active, otherwise newly created ones. */
export async function ensureDevKeys(db: Database, known: Partial<DevKeys> | undefined, verify: (secret: string) => Promise<boolean>): Promise<DevKeys> {
  const keys: Partial<DevKeys> = {};
  for (const scope of SCOPES) {
    const secret = known?.[scope];
    if (secret && (await verify(secret))) {
      keys[scope] = secret;
      continue;
    }
    const created = await createApiKey(db, { name: `development ${scope} key`, scope, development: true });
    keys[scope] = created.secret;
  }
  return keys as DevKeys;
}
