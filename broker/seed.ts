/**
 * Seeds the sandbox, idempotently: the participant credential, the issuer's account, and the development
 * participant account with `minimumShares` of each development symbol, deposited once (a `deposit` journal row, so
 * positions always equal the journal). Later seeds leave the positions as the flow left them, unless asked to top
 * them back up to the minimum (`topUp`).
 */
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { inTransaction } from '../db/pool';
import { Decimal } from '../domain/money';
import { applyMigrations } from '../db/migrate';
import { BROKER_MIGRATIONS } from './migrate';
import { accountPositions, ensureAccount } from './queries/accounts';
import { storeCredential, type Credential } from './queries/credentials';
import { topUpPosition } from './queries/journal';
import { topUpCash } from './queries/orders';

export const DEVELOPMENT_SYMBOLS = ['AAPL', 'NVDA', 'TSLA', 'MSFT', 'AMZN'] as const;

export interface SandboxAccount {
  accountId: string;
  accountNumber: string;
  email: string;
  /** symbol → decimal string */
  positions: Record<string, string>;
}

export interface ParticipantSeed {
  accountNumber: string;
  email: string;
  /** Default: `DEVELOPMENT_SYMBOLS`. */
  symbols?: readonly string[];
  /** Default: 1000. */
  minimumShares?: string;
}

export interface SeedBrokerSandboxOptions {
  /** The participant credential that owns the seeded participant accounts (stored hashed). */
  brokerCredential: Credential;
  /** Default: the development participant (`ap@sandbox.test`, account number `SBX-000001`). */
  participants?: ParticipantSeed[];
  /** Default: `issuer@sandbox.test`. */
  issuerEmail?: string;
  /** Top positions below the minimum back up to it (default: only a symbol the account never had a deposit of). */
  topUp?: boolean;
  /** The issuer account's cash at least (USD), default `ISSUER_CASH`. */
  issuerCash?: string;
}

/** The issuer account's cash in a seeded sandbox: enough buying power for any development hedge. */
export const ISSUER_CASH = '1000000000';

export interface SeededSandbox {
  accounts: SandboxAccount[];
  /** The issuer's account; its `accountId` (= `ISSUER_ACCOUNT_ID`) is the `{account_id}` of the issuer's callbacks. */
  issuerAccount: SandboxAccount;
}

export const DEVELOPMENT_PARTICIPANT: ParticipantSeed = { accountNumber: 'SBX-000001', email: 'ap@sandbox.test' };

/** The account number of the issuer's account at the broker. */
export const ISSUER_ACCOUNT_NUMBER = 'SBX-ISSUER';

/** A stable UUID-shaped account id derived from the account number, so every seed names the same account. */
export function sandboxAccountId(accountNumber: string): string {
  const hex = createHash('sha256').update(`brokerage-sandbox:${accountNumber}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The issuer's sandbox account id, the same in every seeded sandbox (what the issuer configures once). */
export const ISSUER_ACCOUNT_ID = sandboxAccountId(ISSUER_ACCOUNT_NUMBER);

export async function seedBrokerSandbox(db: Pool, options: SeedBrokerSandboxOptions): Promise<SeededSandbox> {
  await applyMigrations(db, BROKER_MIGRATIONS);
  await storeCredential(db, options.brokerCredential, 'participant');
  const issuer = await ensureAccount(db, {
    accountId: ISSUER_ACCOUNT_ID,
    accountNumber: ISSUER_ACCOUNT_NUMBER,
    email: options.issuerEmail ?? 'issuer@sandbox.test',
    kind: 'issuer',
    ownerKey: null,
  });
  // The issuer's buying power for its hedges (the stablecoin its attestation trades take in, on the sandbox's side).
  await topUpCash(db, issuer.accountId, options.issuerCash ?? ISSUER_CASH);
  const accounts: SandboxAccount[] = [];
  for (const seed of options.participants ?? [DEVELOPMENT_PARTICIPANT]) {
    const accountId = sandboxAccountId(seed.accountNumber);
    await ensureAccount(db, { accountId, accountNumber: seed.accountNumber, email: seed.email, kind: 'participant', ownerKey: options.brokerCredential.key });
    const minimum = new Decimal(seed.minimumShares ?? '1000');
    for (const symbol of seed.symbols ?? DEVELOPMENT_SYMBOLS) {
      await inTransaction(db, (client) => topUpPosition(client, { accountId, symbol, minimum: minimum.toFixed(), firstDepositOnly: !options.topUp }));
    }
    accounts.push({ accountId, accountNumber: seed.accountNumber, email: seed.email, positions: await accountPositions(db, accountId) });
  }
  return {
    accounts,
    issuerAccount: { accountId: issuer.accountId, accountNumber: issuer.accountNumber, email: issuer.email, positions: await accountPositions(db, issuer.accountId) },
  };
}
