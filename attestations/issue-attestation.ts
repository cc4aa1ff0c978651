/**
 * Creates a signed attestation in two round trips to PostgreSQL: the first takes a lock that serialises the user's
 * orders for the asset and reads, under it, the quote context with the user's usage; the request is priced, the quote
 * signed and the limits checked; the second stores the attestation, with the request for its lifecycle workflow that a
 * worker starts, and commits, together with the other orders arriving meanwhile (batched-store.ts; off-hours, within
 * the exposure caps, on the session's exposure ledger).
 * An Idempotency-Key makes a retry answer the first attestation; the same key with another body is refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/pool';
import type { AssetRecord } from '../db/queries/assets';
import { beginOrder, findByIdempotencyKey, type NewAttestation } from '../db/queries/attestations';
import { limitsSessionOf, sessionIntervalAt } from '../domain/calendar';
import { bareChainId, isEvmChain, SOLANA_CHAIN, type Chain } from '../domain/chains';
import { formatDecimal, Rounding, toScaledInteger } from '../domain/money';
import { expirationSeconds } from '../domain/pricing';
import { bytesToBase64, evmDomain, QUOTE_SIDE, solanaAddressBytes, ZERO_BYTES32, type Quote, type Signers } from '../signing';
import { AttestationRefused } from './errors';
import type { BatchedStore } from './batched-store';
import { limitRefusal, refusedBy, type LimitSettings } from './limits';
import { priceFromContext, type PricedRequest } from './price-request';
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

/** For Solana the user's wallet is bound into the signed bytes through additionalData; EVM quotes carry zeros. */
function additionalDataOf(chain: Chain, userAddress: string | undefined): `0x${string}` {
  if (chain !== SOLANA_CHAIN) return ZERO_BYTES32;
  // The request schema admits a Solana request only with a valid base58 32-byte userAddress.
  const bytes = solanaAddressBytes(userAddress ?? '');
  if (!bytes) throw new Error(`a ${chain} attestation request reached signing without a valid userAddress`);
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

async function sign(dependencies: AttestationDependencies, priced: PricedRequest, quote: Quote): Promise<Uint8Array> {
  if (!isEvmChain(priced.chain)) return dependencies.signers.solana.sign(quote);
  // Pricing refuses an EVM quote on a chain without a deployed token manager.
  return dependencies.signers.evm.sign(quote, evmDomain(priced.chain, priced.tokenManager!));
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

/** The signed answer for a priced request, and its expiry (epoch seconds). */
async function signedAttestation(
  dependencies: AttestationDependencies,
  input: IssueAttestationInput,
  priced: PricedRequest,
): Promise<{ attestation: AttestationResponse; expiration: number }> {
  const { caller, asset, request, now } = input;
  const additionalData = additionalDataOf(priced.chain, request.userAddress);
  const attestationId = BigInt(`0x${randomBytes(16).toString('hex')}`);
  const expiration = expirationSeconds(now, priced.duration, priced.policy);
  const quote: Quote = {
    chainId: bareChainId(priced.chain),
    attestationId,
    userId: caller.userId,
    asset: priced.assetAddress,
    price: toScaledInteger(priced.price, 18, Rounding.DOWN),
    quantity: toScaledInteger(priced.tokenAmount, 18, Rounding.DOWN),
    expiration: BigInt(expiration),
    side: QUOTE_SIDE[priced.side],
    additionalData,
  };
  const attestation: AttestationResponse = {
    attestationId: attestationId.toString(),
    userId: caller.userId,
    chainId: quote.chainId.toString(),
    symbol: asset.symbol,
    ticker: asset.ticker,
    assetAddress: priced.assetAddress,
    side: String(quote.side) as '0' | '1',
    tokenAmount: quote.quantity.toString(),
    price: quote.price.toString(),
    expiration,
    signature: bytesToBase64(await sign(dependencies, priced, quote)),
    additionalData: bytesToBase64(Buffer.from(additionalData.slice(2), 'hex')),
  };
  return { attestation, expiration };
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
    const { attestation, expiration } = await signedAttestation(dependencies, input, priced);
    const refusal = refusedBy(status, read, dependencies.settings, priced.notional);
    if (refusal) throw new AttestationRefused(refusal.code, refusal.message);
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
    const withinCaps = await dependencies.store.storeAndCommit(client, { attestation: record, caps });
    inTransaction = false;
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
