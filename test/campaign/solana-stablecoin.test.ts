/**
 * Invariant 7 on Solana (campaign/solana-stablecoin.ts) on the local ledger through its JSON-RPC: npm start's set-up
 * (mints, treasury, nonce pool, funded development wallets), a buy and a sell the issuer signed (signing/
 * solana-transaction.ts) sent by a wallet and recorded final by the product's Solana watcher activity; the treasury's
 * stablecoin then checks clean, the buy paid in rounded up and the sell paid out rounded down (amounts with digits
 * beyond the stablecoin's six). A wallet's transfer to the treasury outside any attestation is then named, and so is
 * the issuer paying a wallet from it.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { createKeyPairSignerFromPrivateKeyBytes, getBase64EncodedWireTransaction, getTransactionDecoder, type Address, type SignatureBytes } from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createSolanaWatcherActivities } from '../../activities/solana-watcher';
import { solanaIssuerSigner } from '../../chains/solana-accounts';
import { deriveSolanaContext, SOLANA_STABLECOIN_DECIMALS, type SolanaContext } from '../../chains/solana-context';
import { rpcNonceLedger } from '../../chains/solana-ledger';
import { checkStablecoinOnSolana, type SolanaTreasury } from '../../campaign/solana-stablecoin';
import { storeAttestationsAndCommit } from '../../db/queries/attestations';
import { Decimal, Rounding, toScaledInteger } from '../../domain/money';
import { quietLogger } from '../../harness/settings';
import { decodeBase58, signSolanaAttestationTransaction } from '../../signing';
import { QUOTE_SIDE } from '../../signing/quote';
import { startSolanaLedger, type SolanaLedger } from '../../solana-ledger';
import { ensureSolanaSetup, type SolanaDevWallet, type SolanaStackChain } from '../../start/solana-setup';
import { startTemporalServer } from '../../temporal-server';
import { Client, Connection } from '@temporalio/client';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { send, signedTransaction } from '../support/solana';

const SYMBOLS = ['AAPLon'];
const CHAIN = 'solana-900';
const ACCOUNT = 'acct_solana_stablecoin';
const USER_ID = `0x${'5b'.repeat(32)}`;
const logger = quietLogger();

let database: TestDb;
let ledger: SolanaLedger;
let temporalServer: Awaited<ReturnType<typeof startTemporalServer>>;
let connection: Connection;
let issuerSecretKey: Uint8Array;
let setup: { chain: SolanaStackChain; wallets: SolanaDevWallet[] };
let solana: SolanaContext;
let treasury: SolanaTreasury;
let scanChain: () => Promise<unknown>;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  ledger = await startSolanaLedger({ slotMs: 20, confirmedLag: 1, finalizedLag: 3 });
  const seed = Uint8Array.from({ length: 32 }, (_, index) => index + 11);
  issuerSecretKey = new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);
  setup = await ensureSolanaSetup({ rpcUrl: ledger.rpcUrl, issuerSecretKey, symbols: SYMBOLS, noncePoolSize: 3, faucet: true, wallets: true, logger });
  solana = await deriveSolanaContext({ rpcUrl: ledger.rpcUrl, issuerSecretKey, symbols: SYMBOLS });
  treasury = { rpcUrl: ledger.rpcUrl, treasury: setup.chain.treasury, stablecoinMint: setup.chain.stablecoinMint };
  await database.db.query(`UPDATE asset_addresses SET address = $3, decimals = 9 WHERE symbol = $1 AND network_chain_id = $2`, ['AAPLon', CHAIN, solana.mints.get('AAPLon')]);
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'solana stablecoin test')`, [ACCOUNT, USER_ID]);
  // The watcher's outbox starts the attestations' and hedges' workflows: on a service no worker polls here.
  temporalServer = await startTemporalServer({});
  connection = await Connection.connect({ address: temporalServer.address });
  const activities = createSolanaWatcherActivities({
    db: database.db,
    temporal: new Client({ connection }),
    taskQueue: `solana-stablecoin-${process.pid}`,
    hedgeWindowMs: 1_000,
    solana,
    chain: CHAIN,
    settlementGraceMs: 60_000,
  });
  scanChain = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(activities.scanChain);
}, 180_000);

afterAll(async () => {
  await connection?.close();
  await temporalServer?.stop();
  await ledger?.stop();
  await database?.drop();
});

/** Until the watcher has made final everything the ledger has finalized now (slots move on their timer). */
async function watcherAtFinalized(): Promise<void> {
  const target = ledger.ledger.slotAt('confirmed');
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`the Solana watcher did not make slot ${target} final within a minute`);
    await scanChain();
    const { rows } = await database.db.query<{ final: string }>(`SELECT final_block::text AS final FROM chain_cursors WHERE chain = $1`, [CHAIN]);
    if (rows[0] && BigInt(rows[0].final) >= BigInt(target)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let nextId = 9_100_000n;
let nextNonce = 0;

/** An attestation stored as the API stores one, signed by the issuer, completed by wallet 0 and sent: its id and signature. */
async function executeAttestation(side: 'buy' | 'sell', tokenAmount: string, price: string): Promise<{ id: string; txHash: string }> {
  const wallet = setup.wallets[0]!;
  const attestationId = (nextId += 1n);
  const nonceAccount = setup.chain.noncePool[nextNonce++ % setup.chain.noncePool.length]! as Address;
  const nonce = await rpcNonceLedger(ledger.rpcUrl, 'processed').readNonce(nonceAccount);
  const signed = await signSolanaAttestationTransaction(
    {
      ...solana,
      attestationId,
      side: side === 'buy' ? QUOTE_SIDE.buy : QUOTE_SIDE.sell,
      user: wallet.address as Address,
      stockMint: solana.mints.get('AAPLon')!,
      stockDecimals: solana.tokenDecimals,
      price: toScaledInteger(new Decimal(price), 18, Rounding.DOWN),
      quantity: toScaledInteger(new Decimal(tokenAmount), 18, Rounding.DOWN),
      nonceAccount,
      nonce: nonce!,
    },
    (message) => ed25519.sign(message, issuerSecretKey.subarray(0, 32)),
  );
  const now = Date.now();
  const client = await database.db.connect();
  try {
    await client.query('BEGIN');
    await storeAttestationsAndCommit(client, [
      {
        attestation: {
          attestationId: String(attestationId), accountId: ACCOUNT, userId: USER_ID, symbol: 'AAPLon', chain: CHAIN, side, duration: 'long',
          tokenAmount, price, notional: new Decimal(tokenAmount).times(price).toFixed(), session: 'regular', sessionStartedAt: now - 60_000, createdAt: now,
          expiresAt: now + 600_000, userAddress: wallet.address, assetAddress: solana.mints.get('AAPLon')!, signature: signed.signature,
          additionalData: signed.additionalData, response: {}, idempotencyKey: null, requestHash: 'h',
        },
      },
    ]);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  const transaction = getTransactionDecoder().decode(Buffer.from(signed.additionalData, 'base64'));
  const userSignature = ed25519.sign(Uint8Array.from(transaction.messageBytes), decodeBase58(wallet.secretKey)!.subarray(0, 32)) as SignatureBytes;
  const txHash = await send(ledger.rpcUrl, getBase64EncodedWireTransaction({ ...transaction, signatures: { ...transaction.signatures, [wallet.address]: userSignature } }));
  return { id: String(attestationId), txHash };
}

/** Moves `amount` base units of the stablecoin between the treasury and wallet 0's account, signed by the owner of the source. */
async function strayTransfer(direction: 'to treasury' | 'from treasury', amount: bigint): Promise<string> {
  const wallet = await createKeyPairSignerFromPrivateKeyBytes(decodeBase58(setup.wallets[0]!.secretKey)!.subarray(0, 32));
  const issuer = await solanaIssuerSigner(issuerSecretKey);
  const mint = setup.chain.stablecoinMint as Address;
  const [walletAccount] = await findAssociatedTokenPda({ owner: wallet.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const toTreasury = direction === 'to treasury';
  const owner = toTreasury ? wallet : issuer;
  const instruction = getTransferCheckedInstruction({
    source: toTreasury ? walletAccount : (setup.chain.treasury as Address),
    destination: toTreasury ? (setup.chain.treasury as Address) : walletAccount,
    mint,
    authority: owner,
    amount,
    decimals: SOLANA_STABLECOIN_DECIMALS,
  });
  return send(ledger.rpcUrl, await signedTransaction(ledger.rpcUrl, owner, [instruction]));
}

test("an executed buy and sell move the treasury's stablecoin as attested, rounded for the issuer; a stray transfer to or from it is named", async () => {
  const buy = await executeAttestation('buy', '2.5', '187.1234567');
  await watcherAtFinalized();
  const sell = await executeAttestation('sell', '1.25', '187.1234567');
  await watcherAtFinalized();
  const { rows } = await database.db.query<{ id: string; state: string }>(`SELECT attestation_id::text AS id, state FROM attestations WHERE attestation_id IN ($1, $2) ORDER BY 1`, [buy.id, sell.id]);
  expect(rows).toEqual([{ id: buy.id, state: 'executed' }, { id: sell.id, state: 'executed' }]);

  // 2.5 × 187.1234567 = 467.80864175 paid in (467.808642), 1.25 × 187.1234567 = 233.904320875 paid out (233.904320).
  expect(await checkStablecoinOnSolana(database.db, treasury)).toEqual([]);

  const strayIn = await strayTransfer('to treasury', 1_500_000n);
  const strayOut = await strayTransfer('from treasury', 250_000n);
  await watcherAtFinalized();
  expect(await checkStablecoinOnSolana(database.db, treasury)).toEqual([
    { invariant: '7 stablecoin', rule: "the Solana treasury's stablecoin moved outside any final execution", records: { chain: CHAIN, txHash: strayIn, slot: expect.any(String), attestationIds: '', expected: '0', moved: '1.5' } },
    { invariant: '7 stablecoin', rule: "the Solana treasury's stablecoin moved outside any final execution", records: { chain: CHAIN, txHash: strayOut, slot: expect.any(String), attestationIds: '', expected: '0', moved: '-0.25' } },
  ]);
}, 120_000);
