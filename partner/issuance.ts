/**
 * The broker's in-kind issuance and its confirm, as the issuer takes them.
 *
 * An issuance is checked against the client (onboarded, eligible, linked to a partner account), the wallet
 * (the client's, enabled for the flow and registered on that chain), the token (offered on that network), its
 * `created` (within the freshness window) and the broker's signature (of a form the contract takes, recovering to a
 * holder of BROKER_SIGNER_ROLE on that chain's issuer contract, see broker-signature.ts), then the session's USD mint
 * limit for the underlying, and only then stored `created` with its `partnerMintWorkflow` started: a refusal writes
 * nothing and holds no limit. The signer's nonce must not be held by another live mint on that chain, as the contract
 * takes it once: the store itself refuses it (a unique index), so two issuances racing with one nonce get one 201.
 * The limit is measured under a lock per underlying, on the stored requests of the running session, at the
 * underlying's latest price. The broker's `tokenization_request_id` is the idempotency key: a second submission
 * answers the first result, the same id with other fields is a conflict.
 *
 * A confirm is stored first (so a workflow started later, or one that missed the signal, still finds it), then
 * signalled to the workflow; a repeated confirm signals again, a contradicting one is a conflict.
 */
import { randomUUID } from 'node:crypto';
import { inTransaction, type Database, type Queryable } from '../db/pool';
import { chainTokenAddresses, findChainDeployment, type ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { findPartnerClient } from '../db/queries/partner-clients';
import {
  BROKER_NONCE_INDEX,
  findPartnerRequestByTokenizationId,
  insertPartnerMint,
  storeBrokerConfirm,
  type PartnerRequestRecord,
  type SignedMintRequest,
} from '../db/queries/partner-requests';
import { findPartnerSessionLimit, lockPartnerLimit, partnerSessionUsage } from '../db/queries/partner-limits';
import { findPartnerWallet } from '../db/queries/wallets';
import { findLatestPrice } from '../db/queries/latest-prices';
import { limitsSessionOf, sessionIntervalAt } from '../domain/calendar';
import { Decimal } from '../domain/money';
import { chainOfNetwork, notionalUsd, tokenSymbolOf, type PartnerNetwork } from '../domain/partner';
import { brokerConfirmSignal } from '../temporal/messages';
import { partnerMintWorkflowId } from '../temporal/workflow-ids';
import { verifyBrokerSignature, type BrokerSignerDirectory } from './broker-signature';
import { PartnerRefused } from './errors';
import { startPartnerMintWorkflow, type PartnerWorkflows } from './workflows';

export interface IssuanceRequest {
  tokenizationRequestId: string;
  /** Shares, at most nine decimals. */
  qty: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  network: PartnerNetwork;
  clientId: string;
  wallet: `0x${string}`;
  mintRequest: SignedMintRequest;
}

export interface IssuanceOutcome {
  request: PartnerRequestRecord;
  /** False when the tokenization request id was already stored (a resubmission). */
  created: boolean;
}

export interface PartnerDependencies {
  db: Database;
  workflows: PartnerWorkflows;
  /** Epoch ms. */
  now: number;
  /** Who may sign mint requests on each chain (read on chain). */
  brokerSigners: BrokerSignerDirectory;
}

/**
 * How far an issuance's `created` (epoch seconds, signed by the broker) may lie from the issuer's clock: at most 15
 * minutes in the past (the broker resubmits the same signed bytes while the issuer is unreachable) and 1 minute in the
 * future (clock skew). A resubmission of a stored request answers the first result whatever its age.
 */
const ISSUANCE_FRESHNESS = { maxAgeSeconds: 15 * 60, maxAheadSeconds: 60 } as const;

const UNIQUE_VIOLATION = '23505';

const violatesBrokerNonce = (error: unknown): boolean =>
  (error as { code?: string }).code === UNIQUE_VIOLATION && (error as { constraint?: string }).constraint === BROKER_NONCE_INDEX;

function checkFreshness(created: number, now: number): void {
  const nowSeconds = Math.floor(now / 1000);
  if (created < nowSeconds - ISSUANCE_FRESHNESS.maxAgeSeconds) {
    throw new PartnerRefused('INVALID_CREATED', `created ${created} is ${nowSeconds - created} s old; an issuance must be at most ${ISSUANCE_FRESHNESS.maxAgeSeconds} s old`);
  }
  if (created > nowSeconds + ISSUANCE_FRESHNESS.maxAheadSeconds) {
    throw new PartnerRefused('INVALID_CREATED', `created ${created} is ${created - nowSeconds} s in the future; at most ${ISSUANCE_FRESHNESS.maxAheadSeconds} s is allowed`);
  }
}

/** A resubmission must carry the same request; anything else under the same id is a conflict. */
function sameIssuance(stored: PartnerRequestRecord, request: IssuanceRequest): boolean {
  return (
    stored.clientId === request.clientId &&
    stored.chain === chainOfNetwork(request.network) &&
    stored.underlyingSymbol === request.underlyingSymbol &&
    stored.tokenSymbol === request.tokenSymbol &&
    stored.wallet === request.wallet.toLowerCase() &&
    new Decimal(stored.qty ?? '0').eq(new Decimal(request.qty)) &&
    stored.mintRequest?.created === request.mintRequest.created &&
    stored.mintRequest?.nonce === request.mintRequest.nonce &&
    stored.mintRequest?.brokerSignature.toLowerCase() === request.mintRequest.brokerSignature.toLowerCase()
  );
}

function replayOf(stored: PartnerRequestRecord, request: IssuanceRequest): IssuanceOutcome {
  if (!sameIssuance(stored, request)) {
    throw new PartnerRefused('REQUEST_CONFLICT', `Tokenization request ${request.tokenizationRequestId} was already submitted with other fields`);
  }
  return { request: stored, created: false };
}

/** The client, wallet and token checks; answers the chain's deployment. */
async function checkParties(db: Queryable, request: IssuanceRequest): Promise<ChainDeploymentRecord> {
  const chain = chainOfNetwork(request.network);
  const client = await findPartnerClient(db, request.clientId);
  if (!client) throw new PartnerRefused('CLIENT_NOT_FOUND', `No client ${request.clientId} is onboarded for the partner flow`);
  if (!client.eligible) throw new PartnerRefused('CLIENT_NOT_ELIGIBLE', `Client ${request.clientId} is not eligible for the partner flow`);
  if (!client.partnerAccount) throw new PartnerRefused('ACCOUNT_NOT_LINKED', `Client ${request.clientId} is not linked to a partner account`);

  if (request.tokenSymbol !== tokenSymbolOf(request.underlyingSymbol)) {
    throw new PartnerRefused('INVALID_TOKEN_SYMBOL', `token_symbol must be ${tokenSymbolOf(request.underlyingSymbol)} for ${request.underlyingSymbol}`);
  }
  const deployment = await findChainDeployment(db, chain);
  if (!deployment) throw new PartnerRefused('CHAIN_UNAVAILABLE', `No contracts are deployed on ${request.network}`);
  const tokens = await chainTokenAddresses(db, chain);
  if (!tokens[request.tokenSymbol]) throw new PartnerRefused('TOKEN_NOT_ON_NETWORK', `${request.tokenSymbol} is not deployed on ${request.network}`);

  const wallet = await findPartnerWallet(db, chain, request.wallet);
  if (!wallet || wallet.clientId !== request.clientId || !wallet.partnerEnabled) {
    throw new PartnerRefused('WALLET_NOT_ENABLED', `Wallet ${request.wallet} is not enabled for client ${request.clientId} on ${request.network}`);
  }
  if (wallet.state !== 'registered') {
    throw new PartnerRefused('WALLET_NOT_ENABLED', `Wallet ${request.wallet} is ${wallet.state} in the identity registry on ${request.network}, not registered`);
  }
  return deployment;
}

/** Checks, measures against the session's limit and stores the issuance, then starts its workflow. */
export async function acceptIssuance(deps: PartnerDependencies, request: IssuanceRequest): Promise<IssuanceOutcome> {
  const known = await findPartnerRequestByTokenizationId(deps.db, request.tokenizationRequestId);
  if (known) {
    const replay = replayOf(known, request);
    if (known.state === 'created' || known.state === 'confirmed' || known.state === 'minted') await startPartnerMintWorkflow(deps.workflows, known.issuerRequestId);
    return replay;
  }
  checkFreshness(request.mintRequest.created, deps.now);
  const deployment = await checkParties(deps.db, request);
  // A transition pause is on the off-hours track: its limit is the off-hours one, measured from the pause's start.
  const interval = sessionIntervalAt(deps.now);
  const session = { ...interval, session: limitsSessionOf(interval.session) };
  const limit = await findPartnerSessionLimit(deps.db, request.underlyingSymbol, session.session, 'mint');
  if (limit === undefined) throw new PartnerRefused('TOKEN_NOT_ON_NETWORK', `${request.underlyingSymbol} is not offered in the partner flow`);
  const brokerSigner = await verifyBrokerSignature(
    deps.brokerSigners,
    { chain: chainOfNetwork(request.network), chainId: deployment.chainId, issuer: deployment.issuer },
    {
      tokenizationRequestId: request.tokenizationRequestId,
      underlyingSymbol: request.underlyingSymbol,
      tokenSymbol: request.tokenSymbol,
      qty: request.qty,
      wallet: request.wallet,
      network: request.network,
      clientId: request.clientId,
      created: request.mintRequest.created,
      nonce: request.mintRequest.nonce,
      signature: request.mintRequest.brokerSignature,
    },
  );

  const price = await findLatestPrice(deps.db, request.tokenSymbol);
  if (!price) throw new PartnerRefused('PRICE_UNAVAILABLE', `No price of ${request.underlyingSymbol} to measure the session limit with`);
  const notional = notionalUsd(request.qty, price.underlyingPrice);

  const store = inTransaction(deps.db, async (client): Promise<IssuanceOutcome> => {
    await lockPartnerLimit(client, 'mint', request.underlyingSymbol);
    const raced = await findPartnerRequestByTokenizationId(client, request.tokenizationRequestId);
    if (raced) return replayOf(raced, request);
    const used = new Decimal(await partnerSessionUsage(client, 'mint', request.underlyingSymbol, session.start));
    if (used.plus(notional).gt(limit)) {
      const remaining = Decimal.max(new Decimal(limit).minus(used), 0).toFixed(2);
      throw new PartnerRefused(
        'PARTNER_LIMIT_REACHED',
        `${request.qty} ${request.underlyingSymbol} (${notional} USD) exceeds the ${session.session} session's mint limit of ${limit} USD: ${remaining} USD remain`,
      );
    }
    return await insertPartnerMint(client, {
      issuerRequestId: `mint-${randomUUID()}`,
      clientId: request.clientId,
      chain: chainOfNetwork(request.network),
      underlyingSymbol: request.underlyingSymbol,
      tokenSymbol: request.tokenSymbol,
      wallet: request.wallet,
      qty: request.qty,
      sessionStart: session.start,
      notionalUsd: notional,
      tokenizationRequestId: request.tokenizationRequestId,
      mintRequest: request.mintRequest,
      brokerSigner,
    });
  });
  const outcome = await store.catch(async (error: unknown) => {
    if (!violatesBrokerNonce(error)) throw error;
    // The same request raced under another underlying's lock answers as a resubmission; any other holds the nonce.
    const raced = await findPartnerRequestByTokenizationId(deps.db, request.tokenizationRequestId);
    if (raced) return replayOf(raced, request);
    throw new PartnerRefused(
      'BROKER_NONCE_USED',
      `nonce ${request.mintRequest.nonce} of broker signer ${brokerSigner} is held by another issuance on ${request.network}; the issuer contract takes each nonce of a signer once`,
    );
  });
  await startPartnerMintWorkflow(deps.workflows, outcome.request.issuerRequestId);
  return outcome;
}

export interface ConfirmRequest {
  tokenizationRequestId: string;
  issuerRequestId: string;
  status: 'completed' | 'rejected';
  reason?: string;
}

/** Stores the broker's confirm once and signals it to the mint's workflow (again on every repeat). */
export async function confirmIssuance(deps: Pick<PartnerDependencies, 'db' | 'workflows'>, confirm: ConfirmRequest): Promise<PartnerRequestRecord> {
  const stored = await findPartnerRequestByTokenizationId(deps.db, confirm.tokenizationRequestId);
  if (!stored) throw new PartnerRefused('REQUEST_NOT_FOUND', `No issuance for tokenization request ${confirm.tokenizationRequestId}`);
  if (stored.issuerRequestId !== confirm.issuerRequestId) {
    throw new PartnerRefused('REQUEST_CONFLICT', `Tokenization request ${confirm.tokenizationRequestId} is issuer request ${stored.issuerRequestId}`);
  }
  // Only a request still waiting for its confirm takes one (not one that timed out meanwhile).
  await storeBrokerConfirm(deps.db, stored.issuerRequestId, { status: confirm.status, reason: confirm.reason ?? 'the broker rejected the journal' });
  const request = (await findPartnerRequestByTokenizationId(deps.db, confirm.tokenizationRequestId))!;
  if (request.confirmStatus === null) {
    throw new PartnerRefused('REQUEST_CONFLICT', `Issuer request ${request.issuerRequestId} is ${request.state}: ${request.reason ?? 'it takes no confirm'}`);
  }
  if (request.confirmStatus !== confirm.status) {
    throw new PartnerRefused('REQUEST_CONFLICT', `Issuer request ${request.issuerRequestId} was already confirmed ${request.confirmStatus}`);
  }
  if (request.state === 'created') {
    await startPartnerMintWorkflow(deps.workflows, request.issuerRequestId);
    await deps.workflows.client.workflow
      .getHandle(partnerMintWorkflowId(request.issuerRequestId))
      .signal(brokerConfirmSignal, { status: confirm.status, ...(confirm.reason ? { reason: confirm.reason } : {}) });
  }
  return request;
}
