/**
 * `npm run campaign:check`: the campaign's invariants (campaign/invariants.ts) checked once against a product's
 * database — DATABASE_URL, else the one DATA_DIR/stack.json names — and the EVM chains stack.json names, if any.
 * Prints each violation on a line, or `0 violations`; exits 1 on any.
 */
import { createPublicClient, http, type PublicClient } from 'viem';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { createPool } from '../db/pool';
import { EVM_CHAINS, type EvmChain } from '../domain/chains';
import { readStackFile } from '../start/stack-file';
import { checkInvariants, formatViolation } from './invariants';

const usage = `usage: npm run campaign:check   (the database: DATABASE_URL, else the one DATA_DIR/stack.json names; the EVM chains:
  those DATA_DIR/stack.json names, if it exists; the off-hours caps: OFFHOURS_GLOBAL_EXPOSURE_LIMIT, OFFHOURS_ASSET_EXPOSURE_LIMIT)
  prints every violation of the campaign's invariants, or "0 violations"; exits 1 on any`;

/** The public clients of the EVM chains stack.json names. */
function stackChainClients(stack: ReturnType<typeof readStackFile>): Partial<Record<EvmChain, PublicClient>> | undefined {
  const chains = stack?.chains as Record<string, { rpcUrl?: string }> | undefined;
  if (!chains) return undefined;
  const clients: Partial<Record<EvmChain, PublicClient>> = {};
  for (const chain of EVM_CHAINS) {
    const rpcUrl = chains[chain]?.rpcUrl;
    if (rpcUrl) clients[chain] = createPublicClient({ transport: http(rpcUrl) });
  }
  return clients;
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const config = loadConfig(['DATABASE_URL', 'DATA_DIR', 'OFFHOURS_GLOBAL_EXPOSURE_LIMIT', 'OFFHOURS_ASSET_EXPOSURE_LIMIT']);
  const stack = readStackFile(config.DATA_DIR);
  const url = config.DATABASE_URL ?? stack?.database;
  if (!url) throw new Error('no database: set DATABASE_URL, or run `npm start` first so .data/stack.json names one');
  const db = createPool(url, 1);
  try {
    const violations = await checkInvariants(db, {
      caps: { offhoursGlobalExposure: config.OFFHOURS_GLOBAL_EXPOSURE_LIMIT, offhoursAssetExposure: config.OFFHOURS_ASSET_EXPOSURE_LIMIT },
      chains: stackChainClients(stack),
    });
    for (const violation of violations) process.stdout.write(`${formatViolation(violation)}\n`);
    process.stdout.write(`${violations.length} violation${violations.length === 1 ? '' : 's'}\n`);
    if (violations.length > 0) process.exitCode = 1;
  } finally {
    await db.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
