/**
 * The Solana nonce pool's keeper (workflows/solana-nonce-pool.ts) on the real SDK worker with the product's
 * activities, the local ledger through its JSON-RPC and real PostgreSQL, as a worker on a cluster where npm start's
 * set-up never ran: it makes the pool from nothing, grows it when attestations hold its accounts, and frees an
 * account an expired attestation left held.
 */
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { createActivities } from '../../activities';
import { holdSolanaNonce } from '../../attestations/solana-nonce-pool';
import { solanaIssuerSigner } from '../../chains/solana-accounts';
import { countNonceAccounts, findHeldNonceAccount } from '../../db/queries/solana-nonces';
import { startSolanaLedger, type SolanaLedger } from '../../solana-ledger';
import { solanaNoncePoolStateQuery } from '../../temporal/messages';
import { SOLANA_NONCE_POOL_WORKFLOW_ID } from '../../temporal/workflow-ids';
import type { solanaNoncePoolWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { rpcResult } from '../support/solana';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

let database: TestDb;
let solana: SolanaLedger;
let temporal: ProductTemporal;
const seed = randomBytes(32);
const issuerSecretKey = new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  solana = await startSolanaLedger({ slotMs: 20, confirmedLag: 1, finalizedLag: 3 });
  temporal = await startProductTemporal(
    createActivities({ db: database.db, solanaNoncePool: { rpcUrl: solana.rpcUrl, issuerSecretKey, pool: { size: 3, lowWater: 1, max: 6 }, finalityTimeoutMs: 30_000 } }),
  );
});
afterAll(async () => {
  await temporal?.teardown();
  await solana?.stop();
  await database?.drop();
});

test('a worker makes the pool from nothing, grows it while attestations hold its accounts, and frees one left held past expiry', async () => {
  const issuer = (await solanaIssuerSigner(issuerSecretKey)).address;
  await rpcResult(solana.rpcUrl, 'requestAirdrop', [issuer, 10_000_000_000]);
  const handle = await temporal.client.workflow.start<typeof solanaNoncePoolWorkflow>('solanaNoncePoolWorkflow', {
    workflowId: SOLANA_NONCE_POOL_WORKFLOW_ID,
    taskQueue: temporal.taskQueue,
    args: [{ checkIntervalMs: 300, sweepIntervalMs: 1_000, sweepPastExpiryMs: 60_000 }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });

  // Nothing on chain, nothing registered: the pool's size is made and registered.
  await eventually(async () => expect(await countNonceAccounts(database.db)).toEqual({ free: 3, held: 0, advancing: 0 }), 30_000);
  await eventually(async () => expect(await handle.query(solanaNoncePoolStateQuery)).toMatchObject({ lastRefill: 'enough' }), 30_000);

  // Every account held, one of them by an attestation expired ten minutes ago whose workflow never ended its nonce.
  const now = Date.now();
  const stuck = await holdSolanaNonce(database.db, { attestationId: '1', expiresAt: now - 600_000, now });
  for (const attestationId of ['2', '3']) await holdSolanaNonce(database.db, { attestationId, expiresAt: now + 600_000, now });

  // Grown by two (twice the low-water mark free), and the stuck account advanced and freed with its new nonce.
  await eventually(async () => {
    expect(await findHeldNonceAccount(database.db, '1')).toBeUndefined();
    expect(await countNonceAccounts(database.db)).toEqual({ free: 3, held: 2, advancing: 0 });
  }, 30_000);
  const { rows } = await database.db.query<{ nonce: string }>('SELECT nonce FROM solana_nonce_accounts WHERE address = $1', [stuck.nonceAccount]);
  expect(rows[0]!.nonce).not.toBe(stuck.nonce);
  await recordProductHistory('solana-nonce-pool', handle);
});
