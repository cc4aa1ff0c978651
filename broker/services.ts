/** What the sandbox's routes and its processor share: the database, the signer, the configuration, the logger. */
import type { Pool } from 'pg';
import type { Address, LocalAccount } from 'viem';
import type { Logger } from '../config/logger';
import type { Network } from './fields';
import type { IssuerClient } from './issuer-client';
import type { MarketPrice } from './trading/market';

/** The issuer's `Issuer` contract per network (the EIP-712 `verifyingContract` of a mint request). */
export type IssuerContracts = Partial<Record<Network, Address>>;

export interface BrokerServices {
  db: Pool;
  logger: Logger;
  /** Where the sandbox is reached; the base of the `documentation` links in errors. */
  baseUrl: string;
  /** The issuer id participants name in `issuer` of a mint. */
  issuerId: string;
  issuerContracts: IssuerContracts;
  signer: LocalAccount;
  /** The issuer's partner API (the connect route calls it while the participant waits). */
  issuer: IssuerClient;
  bodyLimitBytes: number;
  /** Failed authentications a client address may make per minute before it is refused (429). */
  authFailuresPerMinute: number;
  /** Tells the processor that new work is due (a mint recorded, a redemption called back). */
  wake(): void;
  trading: TradingServices;
}

/** The trading side: its price source, its clock (sessions, fill times), how long a fill takes, the filler to wake. */
export interface TradingServices {
  marketPrice: MarketPrice;
  clock: () => number;
  fillLatencyMs: number;
  wake(): void;
}
