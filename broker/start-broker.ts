/**
 * Starts the brokerage sandbox: migrates its schema, stores both basic-auth credentials (hashed), listens, and
 * runs the processor that carries mints and redemptions through (picking up whatever was pending in SQL).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalAccount } from 'viem';
import type { Logger } from '../config/logger';
import { createBrokerApp } from './app';
import { createIssuerClient } from './issuer-client';
import { applyMigrations } from '../db/migrate';
import { createPool, type Database } from '../db/pool';
import { BROKER_MIGRATIONS } from './migrate';
import { RequestProcessor } from './processing/processor';
import { storeCredential, type Credential } from './queries/credentials';
import type { IssuerContracts } from './services';
import { OrderFiller } from './trading/filler';
import type { MarketPrice } from './trading/market';

export interface StartBrokerOptions {
  /** The database to use (the caller closes it), or `databaseUrl` for a pool of the sandbox's own. */
  db?: Database;
  databaseUrl?: string;
  host: string;
  /** 0: any free port (see `url`). */
  port: number;
  /** Base of the issuer's partner API, e.g. `http://127.0.0.1:8080`. */
  issuerApiUrl: string;
  /** The partner-scoped API key the issuer gave the broker (sent as `x-api-key`). */
  partnerApiKey: string;
  /** The issuer id participants name in `issuer` of a mint (stack.json `issuer.id`). */
  issuerId: string;
  /** What the issuer authenticates its callbacks with. */
  issuerCredential: Credential;
  /** What authorized participants authenticate with; it owns the seeded participant accounts. */
  brokerCredential: Credential;
  /** The broker's EIP-712 mint-request signer (BROKER_SIGNER_ROLE on the issuer contracts). */
  signer: LocalAccount;
  issuerContracts: IssuerContracts;
  logger: Logger;
  /** Outbound call timeout, default 10 s. */
  issuerTimeoutMs?: number;
  /** First retry delay after a failed issuer call (doubling), default 1 s; cap default 60 s. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** Longest pause between looks for due work, default 1 s. */
  pollMs?: number;
  /** How long a step is held before another worker may take it over, default 30 s. */
  leaseMs?: number;
  /** Largest accepted request body, default 64 KiB. */
  bodyLimitBytes?: number;
  /** Failed authentications a client address may make per minute before it gets 429, default 10 (as the issuer's API). */
  authFailuresPerMinute?: number;
  /** The trading side's price of a symbol (USD per share) at fill time; `npm start` passes the latest underlying price. */
  marketPrice: MarketPrice;
  /** The trading side's clock (its sessions and fill times), default `Date.now`; tests shift it into a session. */
  clock?: () => number;
  /** From an order to its fill, default 200 ms. */
  fillLatencyMs?: number;
  /** The most shares one fill takes (the rest fills one latency later), default: all at once. */
  maxFillQty?: string;
}

export interface RunningBroker {
  /** e.g. `http://127.0.0.1:8090` */
  url: string;
  /** Changes the most shares one fill takes (`maxFillQty`) while it runs: the campaign's partial fills. */
  setMaxFillQty(qty: string | undefined): void;
  /** Stops listening, finishes the step in hand, and closes the pool it opened. */
  stop(): Promise<void>;
}

export async function startBroker(options: StartBrokerOptions): Promise<RunningBroker> {
  if (!options.db && !options.databaseUrl) throw new Error('startBroker needs db or databaseUrl');
  const ownPool = options.db ? undefined : createPool(options.databaseUrl!, 10, (error) => options.logger.warn({ err: error }, 'broker database connection failed'));
  const db = options.db ?? ownPool!;
  let server: Server | undefined;
  let processor: RequestProcessor | undefined;
  let filler: OrderFiller | undefined;
  try {
    await applyMigrations(db, BROKER_MIGRATIONS);
    await storeCredential(db, options.brokerCredential, 'participant');
    await storeCredential(db, options.issuerCredential, 'issuer');

    const issuer = createIssuerClient({ issuerApiUrl: options.issuerApiUrl, partnerApiKey: options.partnerApiKey, timeoutMs: options.issuerTimeoutMs ?? 10_000 });
    processor = new RequestProcessor({
      db,
      logger: options.logger,
      issuer,
      retryInitialMs: options.retryInitialMs ?? 1_000,
      retryMaxMs: options.retryMaxMs ?? 60_000,
      pollMs: options.pollMs ?? 1_000,
      leaseMs: options.leaseMs ?? 30_000,
      concurrency: 10,
    });
    const running = processor;
    const clock = options.clock ?? Date.now;
    const fillLatencyMs = options.fillLatencyMs ?? 200;
    filler = new OrderFiller({
      db,
      logger: options.logger,
      marketPrice: options.marketPrice,
      clock,
      fillLatencyMs,
      maxFillQty: options.maxFillQty,
      pollMs: options.pollMs ?? 1_000,
    });
    const fills = filler;
    const services = {
      db,
      logger: options.logger,
      baseUrl: '',
      issuerId: options.issuerId,
      issuerContracts: options.issuerContracts,
      signer: options.signer,
      issuer,
      bodyLimitBytes: options.bodyLimitBytes ?? 65_536,
      authFailuresPerMinute: options.authFailuresPerMinute ?? 10,
      wake: () => running.wake(),
      trading: { marketPrice: options.marketPrice, clock, fillLatencyMs, wake: () => fills.wake() },
    };
    const koa = createBrokerApp(services);
    const listening = createServer(koa.callback());
    server = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(options.port, options.host, () => resolve());
    });
    const { port } = listening.address() as AddressInfo;
    const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    services.baseUrl = url;
    running.wake();
    fills.wake();
    options.logger.info({ url }, 'brokerage sandbox listening');

    let stopping: Promise<void> | undefined;
    return {
      url,
      setMaxFillQty: (qty) => fills.setMaxFillQty(qty),
      stop: () => {
        stopping ??= (async () => {
          await new Promise<void>((resolve) => {
            listening.close(() => resolve());
            listening.closeAllConnections();
          });
          await running.stop();
          await fills.stop();
          await ownPool?.end();
        })();
        return stopping;
      },
    };
  } catch (error) {
    server?.close();
    await processor?.stop().catch(() => undefined);
    await filler?.stop().catch(() => undefined);
    await ownPool?.end();
    throw error;
  }
}
