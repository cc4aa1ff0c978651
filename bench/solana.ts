/**
 * Solana attestations, measured two ways.
 * - Creation: the route alone (the attestation server child, no worker), Solana beside EVM in one run, as the ratio
 *   of their throughputs — a Solana attestation also takes a durable nonce of the pool and builds and signs its
 *   transaction, and is stored alone rather than in a batch. The pool is filled with enough accounts for the run
 *   (addresses of the right form on no ledger: creation never reads the chain), so the figure is the API's, not the
 *   pool's; the pool bounds what is sustained, not what one request costs (README, the nonce pool).
 * - Settlement: the product on the local ledger at its defaults (a slot every 400 ms, `finalized` 32 slots behind, the
 *   watcher polling every CHAIN_POLL_INTERVAL_MS), a development wallet completing and sending each attestation's
 *   transaction: from the send to the attestation `executing` (the watcher saw it at `confirmed`) and to `executed`
 *   (final, its workflow done), p50 and p99.
 */
import { createHash } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createKeyPairFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Base64EncodedWireTransaction,
} from '@solana/kit';
import { listen } from '../api/server';
import { createPool, type Database } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { addNonceAccounts } from '../db/queries/solana-nonces';
import { CATALOGUE } from '../domain/catalogue';
import { defaultConfig, quietLogger } from '../harness/settings';
import { startFeed } from '../price-feed/feed';
import { MarketDataPipeline } from '../price-feed/pipeline';
import { SimulatedPriceSource } from '../price-feed/simulated-source';
import { encodeBase58, loadSigners } from '../signing';
import { startSolanaLedger } from '../solana-ledger';
import { createProductApp } from '../start/api';
import { recordSolanaMints, registerNoncePool, solanaAccountsOf } from '../start/solana';
import { ensureSolanaSetup, issuerSolanaSecretKey, type SolanaDevWallet } from '../start/solana-setup';
import { startTemporal } from '../start/temporal';
import { startWorker } from '../worker/start-worker';
import { formatResults, load, loadGenerator, type LoadResult } from './load';

const CONNECTIONS = 32;
const ACCOUNTS = 32;
/** Trades in every session, so the benchmark runs on any day. */
const SYMBOL = 'SPYon';
/** Off-ledger nonce accounts for the creation phase: more than a run of its length takes. */
const CREATION_NONCE_ACCOUNTS = 100_000;
/** Transactions sent in the settlement phase, one every SEND_EVERY_MS. */
const SETTLEMENTS = 40;
const SEND_EVERY_MS = Number(process.env.SEND_EVERY_MS ?? 250);

export interface SolanaBench {
  creation: { evm: LoadResult; solana: LoadResult };
  settlement: { sent: number; executingMs: number[]; executedMs: number[]; slotMs: number; finalizedLag: number; pollMs: number };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function raiseLimits(db: Database): Promise<void> {
  await db.query('UPDATE session_limits SET tradable = true, max_attestation_count = 1000000000, max_active_notional_value = 1e15, max_session_notional_value = 1e15');
}

/** Base58 32-byte values from a label: nonce account addresses and nonce values no ledger holds. */
const offLedgerKey = (label: string): string => encodeBase58(createHash('sha256').update(label).digest());

async function benchCreation(databaseUrl: string, seconds: number): Promise<SolanaBench['creation']> {
  const db = createPool(databaseUrl, 4);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-signers-'));
  const server = fork(path.join(__dirname, 'attestation-server.ts'), [], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_DATA_DIR: dataDir },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { url } = await new Promise<{ url: string }>((resolve, reject) => {
      server.once('message', (message) => resolve(message as { url: string }));
      server.once('exit', (code) => reject(new Error(`attestation-server.ts exited with ${code}`)));
    });
    await raiseLimits(db);
    const issuer = (await solanaAccountsOf({ keys: {}, dataDir })).issuer;
    for (let start = 0; start < CREATION_NONCE_ACCOUNTS; start += 5_000) {
      const batch = Array.from({ length: 5_000 }, (_, index) => ({ address: offLedgerKey(`nonce ${start + index}`), authority: issuer, nonce: offLedgerKey(`value ${start + index}`) }));
      await addNonceAccounts(db, batch);
    }
    const keys: string[] = [];
    for (let index = 0; index < ACCOUNTS; index += 1) {
      keys.push((await createApiKey(db, { name: `bench trader ${index}`, scope: 'write', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 })).secret);
    }
    const request = (body: object) => ({
      seconds,
      connections: CONNECTIONS,
      method: 'POST' as const,
      url: `${url}/v1/attestations`,
      body: JSON.stringify(body),
      headerSets: keys.map((key) => ({ 'x-api-key': key, 'content-type': 'application/json' })),
    });
    const evmBody = { symbol: SYMBOL, side: 'buy', tokenAmount: '0.5' };
    const solanaBody = { ...evmBody, chainId: 'solana-900', userAddress: 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9' };
    await load({ ...request(evmBody), name: 'warm-up', seconds: 2 });
    await load({ ...request(solanaBody), name: 'warm-up', seconds: 2 });
    const evm = await load({ ...request(evmBody), name: 'ethereum-1: validate + price + limits + insert (batched) + sign' });
    const solana = await load({ ...request(solanaBody), name: 'solana-900: the same + hold a nonce + build and sign the transaction, stored alone' });
    return { evm, solana };
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    await db.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The wallet's signature on the issuer's half of the transaction: what it sends. */
async function completedBy(wallet: SolanaDevWallet, additionalData: string): Promise<Base64EncodedWireTransaction> {
  const keyPair = await createKeyPairFromBytes(Uint8Array.from(getBase58Encoder().encode(wallet.secretKey)));
  const transaction = getTransactionDecoder().decode(Buffer.from(additionalData, 'base64'));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([keyPair], transaction));
}

export async function benchSettlement(databaseUrl: string): Promise<SolanaBench['settlement']> {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-solana-'));
  const logger = quietLogger();
  const config = defaultConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1', TEMPORAL_TASK_QUEUE: `bench-solana-${process.pid}` });
  const db = createPool(databaseUrl, 10);
  const stops: Array<() => Promise<unknown>> = [async () => db.end()];
  try {
    const ledger = await startSolanaLedger({ stateDirectory: path.join(directory, 'solana') });
    stops.unshift(() => ledger.stop());
    // Development signer keys in the phase's directory: the issuer's Solana key among them.
    const signers = loadSigners({ dataDir: directory });
    const issuerSecretKey = issuerSolanaSecretKey({ keys: {}, dataDir: directory });
    const setup = await ensureSolanaSetup({
      rpcUrl: ledger.rpcUrl,
      issuerSecretKey,
      symbols: CATALOGUE.map((asset) => asset.symbol),
      noncePoolSize: SETTLEMENTS + 8,
      faucet: true,
      wallets: true,
      logger,
    });
    const accounts = await solanaAccountsOf({ keys: {}, dataDir: directory });
    await recordSolanaMints(db, accounts);
    await registerNoncePool(db, setup.chain);
    await raiseLimits(db);
    const feed = startFeed({ pipeline: new MarketDataPipeline(db), source: new SimulatedPriceSource({ assets: CATALOGUE, tickMs: 1_000 }) });
    stops.unshift(() => feed.stop());
    const temporal = await startTemporal(config, { logger, inMemory: true });
    stops.unshift(() => temporal.stop());
    const worker = await startWorker({ config, temporal, db, logger, solana: { rpcUrl: ledger.rpcUrl, issuerSecretKey } });
    stops.unshift(() => worker.stop());
    const app = createProductApp({ config, db, logger, temporal: temporal.client, signers, solana: accounts });
    const api = await listen(app, { host: '127.0.0.1', port: 0 });
    stops.unshift(() => api.close());
    const key = (await createApiKey(db, { name: 'bench solana trader', scope: 'write', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 })).secret;
    const rpc = createSolanaRpc(ledger.rpcUrl);

    // The states are watched while the transactions go out, each from its own send.
    const sentAt = new Map<string, number>();
    const executingMs = new Map<string, number>();
    const executedMs = new Map<string, number>();
    let sending = true;
    const watching = (async () => {
      const deadline = performance.now() + 180_000;
      while ((sending || executedMs.size < sentAt.size) && performance.now() < deadline) {
        const { rows } = await db.query<{ id: string; state: string }>('SELECT attestation_id AS id, state FROM attestations WHERE attestation_id = ANY($1)', [[...sentAt.keys()]]);
        const now = performance.now();
        for (const { id, state } of rows) {
          if ((state === 'executing' || state === 'executed') && !executingMs.has(id)) executingMs.set(id, now - sentAt.get(id)!);
          if (state === 'executed' && !executedMs.has(id)) executedMs.set(id, now - sentAt.get(id)!);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    try {
      for (let index = 0; index < SETTLEMENTS; index += 1) {
        const wallet = setup.wallets[index % setup.wallets.length]!;
        const response = await fetch(`${api.url}/v1/attestations`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ symbol: SYMBOL, side: 'buy', tokenAmount: '0.01', chainId: 'solana-900', userAddress: wallet.address }),
        });
        const attestation = (await response.json()) as { attestationId: string; additionalData: string };
        if (response.status !== 200) throw new Error(`attestation refused: ${JSON.stringify(attestation)}`);
        const wire = await completedBy(wallet, attestation.additionalData);
        await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
        sentAt.set(attestation.attestationId, performance.now());
        await new Promise((resolve) => setTimeout(resolve, SEND_EVERY_MS));
      }
    } finally {
      sending = false;
      await watching;
    }
    if (executedMs.size < sentAt.size) throw new Error(`${sentAt.size - executedMs.size} of ${sentAt.size} Solana attestations not executed within 2 minutes`);
    return {
      sent: sentAt.size,
      executingMs: [...executingMs.values()].sort((a, b) => a - b),
      executedMs: [...executedMs.values()].sort((a, b) => a - b),
      slotMs: ledger.ledger.slotMs,
      finalizedLag: ledger.ledger.finalizedLag,
      pollMs: config.CHAIN_POLL_INTERVAL_MS,
    };
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function benchSolana(phase: <T>(run: (url: string) => Promise<T>) => Promise<T>, seconds: number): Promise<SolanaBench> {
  const creation = await phase((url) => benchCreation(url, seconds));
  const settlement = await phase((url) => benchSettlement(url));
  return { creation, settlement };
}

export function formatSolana(bench: SolanaBench): string[] {
  const { evm, solana } = bench.creation;
  const { settlement } = bench;
  const ms = (values: number[], p: number) => `${Math.round(percentile(values, p))} ms`;
  return [
    `Solana attestations: creation, the route alone, ${CONNECTIONS} connections over ${ACCOUNTS} accounts, load from ${loadGenerator}`,
    formatResults([evm, solana]),
    `  solana-900 / ethereum-1 throughput: ${(solana.requestsPerSecond / evm.requestsPerSecond).toFixed(2)}`,
    `Solana settlement on the local ledger (slot ${settlement.slotMs} ms, finalized ${settlement.finalizedLag} slots behind, watcher poll ${settlement.pollMs} ms), ${settlement.sent} buys sent by development wallets`,
    `  sent → executing (seen at confirmed): p50 ${ms(settlement.executingMs, 50)}, p99 ${ms(settlement.executingMs, 99)}`,
    `  sent → executed (final, its workflow done): p50 ${ms(settlement.executedMs, 50)}, p99 ${ms(settlement.executedMs, 99)}`,
  ];
}
