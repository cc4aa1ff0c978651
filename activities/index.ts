/**
 * The worker's activities, built from their dependencies (production injects real services, tests inject
 * local ones). Each activity group adds its factory here.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { IssuerChains } from '../chains/context';
import type { Database } from '../db/pool';
import type { BrokerClient } from '../partner/broker-client';
import { createAttestationActivities } from './attestations';
import { chainFailureTypes } from '../temporal/messages';
import { createChainWatcherActivities, type ChainWatcherActivities } from './chain-watcher';
import { createHedgingActivities } from './hedging';
import { createMarketDataActivities } from './market-data-retention';
import { createPartnerActivities } from './partner';
import { createRedemptionActivities } from './redemptions';
import { createSolanaWatcherActivities, type SolanaWatcherActivityDependencies } from './solana-watcher';
import { SOLANA_CHAIN } from '../domain/chains';
import { createReservesActivities } from './reserves';
import { createSolanaNoncePoolActivities, type SolanaNoncePoolActivities, type SolanaNoncePoolDependencies } from './solana-nonce-pool';
import { createSolanaNonceActivities, type SolanaNonceActivities, type SolanaNonceDependencies } from './solana-nonces';
import { createWalletActivities, type WalletActivities } from './wallets';
import { createWebhookActivities, type WebhookActivityDependencies } from './webhooks';

/** What the on-chain activities need: the chains, and the Temporal service the watchers hand events to. */
export interface ChainDependencies extends IssuerChains {
  /** A client of the Temporal service the worker polls: the watchers signal and start workflows with it. */
  temporal: Client;
  taskQueue: string;
  /** Largest block range per scan. */
  blockRange: number;
  /** ATTESTATION_SETTLEMENT_GRACE_MS: how long after expiry an attestation whose execution left the chain is outstanding again. */
  settlementGraceMs: number;
  /** HEDGE_WINDOW_MS: the netting window of the hedging workflows the watchers start. */
  hedgeWindowMs: number;
}

/** Everything activities need from the outside world. */
export interface ActivityDependencies {
  db: Database;
  /** Absent: a worker without chains; its on-chain activities fail with CHAINS_NOT_CONFIGURED. */
  chains?: ChainDependencies;
  /** The brokerage partner the partner flow calls back; absent: those calls fail and are retried. */
  broker?: BrokerClient;
  /** The Solana ledger the Solana chain watcher reads (absent: it is not watched; its scans fail CHAINS_NOT_CONFIGURED). */
  solanaChain?: Omit<SolanaWatcherActivityDependencies, 'db' | 'chain'>;
  /** RESERVES_TOLERANCE_BPS (default 1). */
  reservesToleranceBps?: number;
  /** The Solana ledger and the issuer's key (the nonce pool's authority); absent: the nonce activities fail, retried until a worker that has them runs them. */
  solana?: Omit<SolanaNonceDependencies, 'db'>;
  /** The same with the pool's bounds, for its keeper; absent: its activities fail likewise. */
  solanaNoncePool?: Omit<SolanaNoncePoolDependencies, 'db'>;
  /** Webhook delivery (absent: its rounds fail, retried until a worker that has it runs them) and retention. */
  webhooks?: Omit<WebhookActivityDependencies, 'db'>;
}

/** Retryable: another worker of the task queue may have Solana (and a Solana attestation must not count expired before its nonce moved). */
async function solanaNotConfigured(): Promise<never> {
  throw ApplicationFailure.create({ type: 'SOLANA_NOT_CONFIGURED', message: 'this worker has no Solana ledger configured' });
}

function notConfigured(): never {
  throw ApplicationFailure.create({ type: chainFailureTypes.notConfigured, message: 'this worker has no chains configured', nonRetryable: true });
}

/** Builds the activities object registered with the worker. */
export function createActivities(deps: ActivityDependencies) {
  const { db, chains, broker } = deps;
  const chainWatcher: ChainWatcherActivities = chains
    ? createChainWatcherActivities({ db, ...chains })
    : { scanChain: async () => notConfigured(), resumeChainWatcher: async () => notConfigured() };
  const solanaNoncePool: SolanaNoncePoolActivities = deps.solanaNoncePool
    ? createSolanaNoncePoolActivities({ db, ...deps.solanaNoncePool })
    : { refillSolanaNoncePool: solanaNotConfigured, sweepStuckSolanaNonces: solanaNotConfigured };
  const solanaNonces: SolanaNonceActivities = deps.solana
    ? createSolanaNonceActivities({ db, ...deps.solana })
    : { advanceAttestationNonce: solanaNotConfigured, releaseExecutedAttestationNonce: solanaNotConfigured };
  const solanaWatcher = deps.solanaChain && createSolanaWatcherActivities({ db, chain: SOLANA_CHAIN, ...deps.solanaChain });
  const wallets: WalletActivities = chains ? createWalletActivities({ db, ...chains }) : { applyWalletRegistration: async () => notConfigured() };
  return {
    ...createMarketDataActivities({ db }),
    ...createAttestationActivities({ db }),
    ...solanaNonces,
    ...chainWatcher,
    // One watcher workflow for every chain: the Solana ledger's scans are its own (activities/solana-watcher.ts).
    async scanChain(input: { chain: string }) {
      if (input.chain !== SOLANA_CHAIN) return chainWatcher.scanChain(input);
      return solanaWatcher ? solanaWatcher.scanChain() : notConfigured();
    },
    async resumeChainWatcher(input: Parameters<ChainWatcherActivities['resumeChainWatcher']>[0]) {
      if (input.chain !== SOLANA_CHAIN) return chainWatcher.resumeChainWatcher(input);
      return solanaWatcher ? solanaWatcher.resumeChainWatcher(input) : notConfigured();
    },
    ...createRedemptionActivities({ db }),
    ...wallets,
    ...createPartnerActivities({ db, chains, broker }),
    ...createHedgingActivities({ db, broker }),
    ...createReservesActivities({ db, chains: chains?.chains, solana: deps.solanaChain?.solana, broker, toleranceBps: deps.reservesToleranceBps ?? 1 }),
    ...solanaNoncePool,
    ...createWebhookActivities({ db, ...deps.webhooks }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
