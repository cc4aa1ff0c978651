/**
 * Creates a signed attestation in two round trips to PostgreSQL: the first takes a lock that serialises the user's
 * orders for the asset and reads, under it, the quote context with the user's usage; the request is priced, the quote
 * signed and the limits checked; the second stores the attestation, with the request for its lifecycle workflow that a
 * worker starts, and commits, together with the other orders arriving meanwhile (batched-store.ts; off-hours, within
 * the exposure caps, on the session's exposure ledger).
 * An Idempotency-Key makes a retry answer the first attestation; the same key with another body is refused.
 *
 * A Solana attestation is the issuer's half of one transaction (signing/solana-transaction.ts) built for the user's
 * wallet over a durable nonce of the issuer's pool: the nonce is held in the transaction that stores the attestation,
 * which is stored alone (not batched with other orders, whose commits are not its own), so an attestation is never
 * stored without its nonce nor a nonce held by an attestation that was not.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Database } from '../db/pool';
import type { AssetRecord } from '../db/queries/assets';
import type { Address } from '@solana/kit';
import type { SolanaAccountsContext } from '../chains/solana-context';
import { beginOrder, findByIdempotencyKey, storeAttestationsAndCommit, type NewAttestation } from '../db/queries/attestations';
import { returnUnstoredHold } from '../db/queries/solana-nonces';
import { limitsSessionOf, sessionIntervalAt } from '../domain/calendar';
import { bareChainId, SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import { formatDecimal, Rounding, toScaledInteger } from '../domain/money';
import { expirationSeconds } from '../domain/pricing';
import { bytesToBase64, evmDomain, InvalidQuoteError, QUOTE_SIDE, ZERO_BYTES32, type Quote, type Signers } from '../signing';
import { signSolanaAttestationTransaction, solanaAttestationAmounts } from '../signing/solana-transaction';
import { AttestationRefused } from './errors';
import type { BatchedStore } from './batched-store';
import { limitRefusal, refusedBy, type LimitSettings } from './limits';
import { priceFromContext, type PricedRequest } from './price-request';
import { holdSolanaNonce, type HeldNonce } from './solana-nonce-pool';
import { statusFromContext } from './trading-status';
import type { AttestationRequest } from './request-schema';
import { attestationsCreated, attestationsRefused } from '../metrics/metrics';

export interface AttestationSettings extends LimitSettings {
  maxPriceAgeMs: number;
}

export interface AttestationDependencies {
  db: Database;
  signers: Signers;
  settings: AttestationSettings;
  /** Where orders are stored, with the others arriving meanwhile (one per database). */
  store: BatchedStore;
  /** The issuer's Solana accounts (mints, treasury) derived from its key; without them Solana attestations are refused CHAIN_UNAVAILABLE. */
  solana?: SolanaAccountsContext;
}

export interface AttestationResponse {
  attestationId: string;
  userId: string;
  chainId: string;
  symbol: string;
  ticker: string;
  assetAddress: string;
  side: '0' | '1';
  tokenAmount: string;
  price: string;
  expiration: number;
  signature: string;
  additionalData: string;
}

export interface CreatedAttestation {
  attestation: AttestationResponse;
  /** Epoch ms at which it expires (for its workflow). */
  expiresAt: number;
  /** True when an idempotent retry answered an earlier attestation. */
  replayed: boolean;
}

export interface AttestationCaller {
  accountId: string;
  userId: `0x${string}`;
}

const UNIQUE_VIOLATION = '23505';

/** A canonical hash of the parsed request: the same order in any JSON spelling hashes the same. */
function requestHash(symbol: string, request: AttestationRequest): string {
  const canonical = [symbol, request.side, request.tokenAmount ?? '', request.notionalValue ?? '', request.duration, request.chainId, request.userAddress ?? ''];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

function replay(record: { requestHash: string; response: unknown }, hash: string): CreatedAttestation {
  if (record.requestHash !== hash) throw new AttestationRefused('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
  const attestation = record.response as AttestationResponse;
  return { attestation, expiresAt: attestation.expiration * 1000, replayed: true };
}

/** Why an account that requires allow-listed wallets is refused the order (the reference's INVALID_ADDRESS). */
function unlistedWalletMessage(request: AttestationRequest, wallet: string): string {
  if (request.userAddress !== undefined) return `user_address is not on the allow list: ${wallet} is not allowed for this account on ${request.chainId}`;
  return `user_address is not on the allow list: ${wallet}, registered to this account on ${request.chainId}, is not allowed for it`;
}

/** An EVM attestation's signature: EIP-712 over the quote (pricing refuses a chain without a deployed token manager). */
function signEvm(dependencies: AttestationDependencies, priced: PricedRequest, quote: Quote): Promise<Uint8Array> {
  return dependencies.signers.evm.sign(quote, evmDomain(priced.chain as EvmChain, priced.tokenManager!));
}

/** The Solana stock mint of the asset, or CHAIN_UNAVAILABLE when this API has no Solana accounts for it. */
function solanaMintOf(dependencies: AttestationDependencies, symbol: string): Address {
  const mint = dependencies.solana?.mints.get(symbol);
  if (!mint) throw new AttestationRefused('CHAIN_UNAVAILABLE', `No ${symbol} mint is known on ${SOLANA_CHAIN} to this API`);
  return mint;
}

/**
 * Refuses, before a nonce is taken, a Solana trade that would move nothing on one side: fewer tokens than one base
 * unit of the mint, or a price below one base unit of the stablecoin (solanaAttestationAmounts never signs those).
 */
function refuseUnsignableAmounts(request: AttestationRequest, trade: Parameters<typeof solanaAttestationAmounts>[0]): void {
  try {
    solanaAttestationAmounts(trade);
  } catch (error) {
    if (!(error instanceof InvalidQuoteError)) throw error;
    const code = request.tokenAmount !== undefined ? 'INVALID_TOKEN_AMOUNT' : 'INVALID_NOTIONAL_VALUE';
    throw new AttestationRefused(code, `Too small to trade on ${SOLANA_CHAIN}: ${error.message}`);
  }
}

export type IssueAttestationInput = { caller: AttestationCaller; asset: AssetRecord; request: AttestationRequest; idempotencyKey?: string; now: number };

/** Issues the attestation (see `issue`), counting what became of the request in the metrics. */
export async function issueAttestation(dependencies: AttestationDependencies, input: IssueAttestationInput): Promise<CreatedAttestation> {
  try {
    const created = await issue(dependencies, input);
    if (!created.replayed) attestationsCreated.inc({ side: input.request.side });
    return created;
  } catch (error) {
    if (error instanceof AttestationRefused) attestationsRefused.inc({ code: error.code });
    throw error;
  }
}

/** The attestation's id and expiry (epoch seconds), and the quote it is signed over (its asset the token on the chain). */
function quoteFor(input: IssueAttestationInput, priced: PricedRequest, asset: string): { quote: Quote; expiration: number } {
  const expiration = expirationSeconds(input.now, priced.duration, priced.policy);
  const quote: Quote = {
    chainId: bareChainId(priced.chain),
    attestationId: BigInt(`0x${randomBytes(16).toString('hex')}`),
    userId: input.caller.userId,
    asset,
    price: toScaledInteger(priced.price, 18, Rounding.DOWN),
    quantity: toScaledInteger(priced.tokenAmount, 18, Rounding.DOWN),
    expiration: BigInt(expiration),
    side: QUOTE_SIDE[priced.side],
    additionalData: ZERO_BYTES32,
  };
  return { quote, expiration };
}

/** The answer for a signed quote: `signature` and `additionalData` as the chain's signing made them (base64). */
function answerOf(input: IssueAttestationInput, quote: Quote, expiration: number, signed: { signature: string; additionalData: string }): AttestationResponse {
  return {
    attestationId: quote.attestationId.toString(),
    userId: input.caller.userId,
    chainId: quote.chainId.toString(),
    symbol: input.asset.symbol,
    ticker: input.asset.ticker,
    assetAddress: quote.asset,
    side: String(quote.side) as '0' | '1',
    tokenAmount: quote.quantity.toString(),
    price: quote.price.toString(),
    expiration,
    signature: signed.signature,
    additionalData: signed.additionalData,
  };
}

/**
 * Signs a priced request: on an EVM chain the EIP-712 quote (additionalData 32 zero bytes); on Solana the
 * attestation's transaction for the user's wallet, over a nonce held now in `client`'s transaction (the one that
 * stores the attestation) — the issuer's signature over its message and the partially signed wire transaction.
 */
async function signedAttestation(
  dependencies: AttestationDependencies,
  input: IssueAttestationInput,
  priced: PricedRequest,
  client: PoolClient,
): Promise<{ attestation: AttestationResponse; expiration: number; nonce?: HeldNonce }> {
  if (priced.chain !== SOLANA_CHAIN) {
    const { quote, expiration } = quoteFor(input, priced, priced.assetAddress);
    const signature = bytesToBase64(await signEvm(dependencies, priced, quote));
    return { attestation: answerOf(input, quote, expiration, { signature, additionalData: bytesToBase64(Buffer.from(ZERO_BYTES32.slice(2), 'hex')) }), expiration };
  }
  const accounts = dependencies.solana;
  const stockMint = solanaMintOf(dependencies, input.asset.symbol);
  // The request schema admits a Solana request only with a valid base58 wallet.
  const user = input.request.userAddress as Address;
  const { quote, expiration } = quoteFor(input, priced, stockMint);
  refuseUnsignableAmounts(input.request, { ...quote, stockDecimals: accounts!.tokenDecimals, stablecoinDecimals: accounts!.stablecoinDecimals });
  const attestationId = quote.attestationId.toString();
  const nonce = await holdSolanaNonce(client, { attestationId, expiresAt: expiration * 1000, now: input.now });
  const signed = await signSolanaAttestationTransaction(
    {
      ...accounts!,
      attestationId: quote.attestationId,
      side: quote.side,
      user,
      stockMint,
      stockDecimals: accounts!.tokenDecimals,
      price: quote.price,
      quantity: quote.quantity,
      nonceAccount: nonce.nonceAccount as Address,
      nonce: nonce.nonce,
    },
    (message) => dependencies.signers.solana.signMessage(message),
  );
  return { attestation: answerOf(input, quote, expiration, signed), expiration, nonce };
}

async function issue(dependencies: AttestationDependencies, input: IssueAttestationInput): Promise<CreatedAttestation> {
  const { db } = dependencies;
  const { caller, asset, request, idempotencyKey, now } = input;
  const hash = requestHash(asset.symbol, request);
  if (idempotencyKey) {
    const earlier = await findByIdempotencyKey(db, caller.accountId, idempotencyKey);
    if (earlier) return replay(earlier, hash);
  }

  const client = await db.connect();
  let inTransaction = true;
  try {
    // The user's orders for the asset are serialised from here to the commit: the usage read is the one they are checked against.
    const interval = sessionIntervalAt(now);
    const session = limitsSessionOf(interval.session);
    const sessionStartedAt = interval.start;
    const { context: read, earlier } = await beginOrder(client, {
      lockKey: `attestations:${caller.accountId}:${asset.symbol}`,
      accountId: caller.accountId,
      symbol: asset.symbol,
      session,
      sessionStartedAt,
      chain: request.chainId,
      now,
      userAddress: request.userAddress,
      idempotencyKey,
    });
    // A first call with this key may have committed while this one waited for the lock.
    if (earlier) {
      await client.query('ROLLBACK');
      return replay(earlier, hash);
    }
    if (read.unlistedWallet !== null) throw new AttestationRefused('INVALID_ADDRESS', unlistedWalletMessage(request, read.unlistedWallet));
    const status = statusFromContext(asset, interval, read);
    const priced = priceFromContext({ now, maxPriceAgeMs: dependencies.settings.maxPriceAgeMs }, asset, request, { status, quote: read });
    if (priced.side === 'buy' && priced.reservesPauseReason !== null) {
      throw new AttestationRefused('RESERVES_SHORT', `Minting ${asset.symbol} is paused until its reserves are covered again: ${priced.reservesPauseReason}`);
    }
    const refusal = refusedBy(status, read, dependencies.settings, priced.notional);
    if (refusal) throw new AttestationRefused(refusal.code, refusal.message);
    const { attestation, expiration, nonce } = await signedAttestation(dependencies, input, priced, client);
    const record: NewAttestation = {
      attestationId: attestation.attestationId,
      accountId: caller.accountId,
      userId: caller.userId,
      symbol: asset.symbol,
      chain: priced.chain,
      side: priced.side,
      duration: priced.duration,
      tokenAmount: formatDecimal(priced.tokenAmount),
      price: formatDecimal(priced.price),
      notional: formatDecimal(priced.notional),
      session,
      sessionStartedAt,
      createdAt: now,
      expiresAt: expiration * 1000,
      userAddress: priced.chain === SOLANA_CHAIN ? (request.userAddress ?? null) : null,
      assetAddress: priced.assetAddress,
      signature: attestation.signature,
      additionalData: attestation.additionalData,
      response: attestation,
      idempotencyKey: idempotencyKey ?? null,
      requestHash: hash,
    };
    // Off-hours, within the exposure caps.
    const { offhoursGlobalExposure, offhoursAssetExposure } = dependencies.settings;
    const caps = session === 'offhours' ? { global: offhoursGlobalExposure.toFixed(), asset: offhoursAssetExposure.toFixed() } : undefined;
    // A Solana attestation is stored in the transaction that holds its nonce, alone; the others with the orders arriving meanwhile.
    const withinCaps = nonce
      ? (await storeAttestationsAndCommit(client, [{ attestation: record, caps }]))[0]!
      : await dependencies.store.storeAndCommit(client, { attestation: record, caps });
    inTransaction = false;
    if (!withinCaps && nonce) await returnUnstoredHold(client, attestation.attestationId);
    if (!withinCaps) throw new AttestationRefused('OFFHOURS_EXPOSURE_LIMIT_REACHED', limitRefusal('OFFHOURS_EXPOSURE_LIMIT_REACHED').message);
    return { attestation, expiresAt: expiration * 1000, replayed: false };
  } catch (error) {
    if (inTransaction) await client.query('ROLLBACK').catch(() => undefined);
    // Two first calls with one Idempotency-Key raced (different assets, different locks): the loser answers the winner's.
    if (idempotencyKey && (error as { code?: string }).code === UNIQUE_VIOLATION) {
      const winner = await findByIdempotencyKey(db, caller.accountId, idempotencyKey);
      if (winner) return replay(winner, hash);
    }
    throw error;
  } finally {
    client.release();
  }
}
