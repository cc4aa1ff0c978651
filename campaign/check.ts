/**
 * `npm run campaign:check`: the campaign's invariants (campaign/invariants.ts) checked once against a product's
 * database — DATABASE_URL, else the one DATA_DIR/stack.json names —, the EVM chains and the Solana ledger stack.json
 * names, if any, and its Temporal service (TEMPORAL_ADDRESS, else stack.json's) for liveness. Prints each violation on
 * a line, or `0 violations`, and each workflow waiting for a person with its reason; exits 1 on any violation.
 */
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { createPool } from '../db/pool';
import { readStackFile } from '../start/stack-file';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { checkStack } from './check-stack';
import { formatViolation } from './invariants';

const usage = `usage: npm run campaign:check   (the database: DATABASE_URL, else the one DATA_DIR/stack.json names; the EVM chains
  and the Solana ledger: those DATA_DIR/stack.json names, if it exists; the Temporal service, for liveness:
  TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, else stack.json's; the off-hours caps: OFFHOURS_GLOBAL_EXPOSURE_LIMIT,
  OFFHOURS_ASSET_EXPOSURE_LIMIT)
  prints every violation of the campaign's invariants, or "0 violations"; exits 1 on any`;

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const config = loadConfig(['DATABASE_URL', 'DATA_DIR', 'OFFHOURS_GLOBAL_EXPOSURE_LIMIT', 'OFFHOURS_ASSET_EXPOSURE_LIMIT', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE']);
  const stack = readStackFile(config.DATA_DIR);
  const url = config.DATABASE_URL ?? stack?.database;
  if (!url) throw new Error('no database: set DATABASE_URL, or run `npm start` first so .data/stack.json names one');
  const temporalAddress = config.TEMPORAL_ADDRESS ?? stack?.temporal?.address;
  const db = createPool(url, 1);
  const temporal = temporalAddress
    ? await createTemporalClient({ address: temporalAddress, namespace: process.env.TEMPORAL_NAMESPACE ? config.TEMPORAL_NAMESPACE : (stack?.temporal?.namespace ?? config.TEMPORAL_NAMESPACE) })
    : undefined;
  try {
    const { violations, waiting } = await checkStack(db, stack, {
      caps: { offhoursGlobalExposure: config.OFFHOURS_GLOBAL_EXPOSURE_LIMIT, offhoursAssetExposure: config.OFFHOURS_ASSET_EXPOSURE_LIMIT },
      temporal,
    });
    for (const violation of violations) process.stdout.write(`${formatViolation(violation)}\n`);
    for (const workflow of waiting) process.stdout.write(`waiting for a person: ${workflow.workflowId} (${workflow.type}, ${workflow.step}): ${workflow.reason}\n`);
    if (!temporal) process.stdout.write('liveness (6) not checked: no TEMPORAL_ADDRESS, and stack.json names no Temporal service\n');
    process.stdout.write(`${violations.length} violation${violations.length === 1 ? '' : 's'}\n`);
    if (violations.length > 0) process.exitCode = 1;
  } finally {
    if (temporal) await closeTemporalClient(temporal);
    await db.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
