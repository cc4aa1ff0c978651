/**
 * `npm run keys -- <command>`: manage API keys in the configured database (DATABASE_URL, or the
 * embedded one under DATA_DIR, which must be running: start it with `npm start`).
 *
 *   create --scope read|write|admin|partner [--name NAME] [--account ID] [--rate N] [--burst N]
 *          prints the new secret once; write/admin keys without --account get a new account
 *   revoke <key id>
 *   list
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { publishChange } from '../db/changes';
import { createPool } from '../db/pool';
import { createApiKey, listApiKeys, revokeApiKey } from '../db/queries/api-keys';
import { readStackFile } from '../start/stack-file';

const createOptions = z.object({
  scope: z.enum(['read', 'write', 'admin', 'partner']),
  name: z.string().min(1).default('cli key'),
  account: z.string().min(1).optional(),
  rate: z.coerce.number().int().positive().optional(),
  burst: z.coerce.number().int().positive().optional(),
});

function databaseUrl(): string {
  const config = loadConfig(['DATABASE_URL', 'DATA_DIR']);
  const url = config.DATABASE_URL ?? readStackFile(config.DATA_DIR)?.database;
  if (!url) throw new Error('no database: set DATABASE_URL, or run `npm start` first so .data/stack.json names one');
  return url;
}

const usage = `usage: npm run keys -- <command>   (the database: DATABASE_URL, else the one DATA_DIR/stack.json names)
  create --scope read|write|admin|partner [--name NAME] [--account ID] [--rate N] [--burst N]
         prints the new secret once; a write or admin key without --account gets a new account
  revoke <key id>
  list`;

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { scope: { type: 'string' }, name: { type: 'string' }, account: { type: 'string' }, rate: { type: 'string' }, burst: { type: 'string' } },
  });
  const [command, argument] = positionals;
  const db = createPool(databaseUrl(), 1);
  try {
    if (command === 'create') {
      const options = createOptions.parse(values);
      const { key, secret } = await createApiKey(db, {
        name: options.name,
        scope: options.scope,
        accountId: options.account,
        rateLimitPerSecond: options.rate,
        rateLimitBurst: options.burst,
      });
      const account = key.accountId ? `, account ${key.accountId}, userId ${key.userId}` : '';
      process.stdout.write(`created ${key.id} (${key.scope}${account})\nsecret: ${secret}\n`);
    } else if (command === 'revoke' && argument) {
      const revoked = await revokeApiKey(db, argument);
      await publishChange(db, 'api-keys');
      process.stdout.write(revoked ? `revoked ${argument}\n` : `no active key ${argument}\n`);
      if (!revoked) process.exitCode = 1;
    } else if (command === 'list') {
      for (const key of await listApiKeys(db)) {
        const limit = key.rateLimitPerSecond ? ` ${key.rateLimitPerSecond}/s burst ${key.rateLimitBurst ?? '-'}` : '';
        const account = key.accountId ? `  ${key.accountId}` : '';
        process.stdout.write(`${key.id}  ${key.scope.padEnd(7)}  ${key.revokedAt ? 'revoked' : 'active '}  ${key.name}${account}${limit}\n`);
      }
    } else {
      process.stderr.write(`${usage}\n`);
      process.exitCode = 2;
    }
  } finally {
    await db.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
