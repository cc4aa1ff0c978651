/**
 * Partner-flow activities: the steps of a partner mint (hold while paused, mint on chain once, call the broker
 * back) and of a redemption's delivery (find the client, measure against the session's redemption limit, call the
 * broker back, read the broker's record). Each step reads the stored request and writes where it ends before it
 * answers, so a retry — after a timeout, a worker killed mid-step — finds its own work done and does nothing twice.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { getAddress, type Hex } from 'viem';
import type { IssuerChains } from '../chains/context';
import { sendTransactionOnce, TransactionWouldRevertError } from '../chains/transactions';
import { issuerAbi } from '../contracts/abi';
import { inTransaction, type Database } from '../db/pool';
import { readWatcherCursor } from '../db/queries/chain-watcher';
import { findChainDeployment } from '../db/queries/chain-deployments';
import { multipliersAt } from '../db/queries/corporate-actions';
import { getMarketState, listCurrentAssetEvents } from '../db/queries/operator-controls';
import { findPartnerRequest, fixPartnerMintAmount, insertPartnerRedemption, updatePartnerRequest, type PartnerRequestRecord, type PartnerRequestState } from '../db/queries/partner-requests';
import { findPartnerSessionLimit, largestPartnerSessionLimit, lockPartnerLimit, partnerSessionUsage } from '../db/queries/partner-limits';
import { findRedemptionToDeliver } from '../db/queries/redemptions';
import { findLatestPrice } from '../db/queries/latest-prices';
import { limitsSessionOf, sessionIntervalAt } from '../domain/calendar';
import { Decimal } from '../domain/money';
import { networkOfChain, notionalUsd, sharesForTokens, tokensForShares } from '../domain/partner';
import { BrokerCallFailed, type BrokerClient } from '../partner/broker-client';
import type { EvmChain } from '../signing';
import { partnerMintWorkflowId } from '../temporal/workflow-ids';
import { chainFailureTypes } from '../temporal/messages';

export interface PartnerActivityDependencies {
  db: Database;
  /** The chains and the issuer's submitter key; absent: minting refuses with CHAINS_NOT_CONFIGURED. */
  chains?: IssuerChains;
  /** The broker's API; absent: callbacks fail (and are retried) until a worker that has it runs them. */
  broker?: BrokerClient;
}

export const partnerFailureTypes = {
  brokerNotConfigured: 'BROKER_NOT_CONFIGURED',
  brokerCallFailed: 'BROKER_CALL_FAILED',
  requestNotFound: 'PARTNER_REQUEST_NOT_FOUND',
} as const;

/** What the workflows need to know of their request. */
export interface PartnerRequestSnapshot {
  state: PartnerRequestState;
  clientId: string | null;
  tokenSymbol: string;
  confirmStatus: 'completed' | 'rejected' | null;
  reason: string | null;
  txHash: string | null;
}

/** Why settlement must wait now: an operator's market pause or the asset's pause (`ASSET_LIMITED` does not hold it). */
export interface SettlementHold {
  code: 'MARKET_PAUSED' | 'ASSET_PAUSED';
  message: string;
}

export type MintOutcome = { outcome: 'minted'; txHash: string } | { outcome: 'refused'; reason: string };

/** How a callback went when its refusals are reported rather than retried: the broker's status and answer. */
export type CallbackOutcome = { outcome: 'delivered' } | { outcome: 'refused'; status: number; answer: string };

export type RedemptionReservation =
  | { outcome: 'reserved' }
  /** Over the session's limit: try again when the session ends (epoch ms). */
  | { outcome: 'wait'; until: number; reason: string }
  /** Larger than any session's limit, or not offered: an operator decides. */
  | { outcome: 'review'; reason: string }
  /** Less than a billionth of a share: nothing to deliver, the whole amount is dust. */
  | { outcome: 'dust' };

function snapshotOf(request: PartnerRequestRecord): PartnerRequestSnapshot {
  return {
    state: request.state,
    clientId: request.clientId,
    tokenSymbol: request.tokenSymbol,
    confirmStatus: request.confirmStatus,
    reason: request.reason,
    txHash: request.txHash,
  };
}

export function createPartnerActivities(deps: PartnerActivityDependencies) {
  const { db } = deps;

  async function requireRequest(issuerRequestId: string): Promise<PartnerRequestRecord> {
    const request = await findPartnerRequest(db, issuerRequestId);
    if (!request) throw ApplicationFailure.create({ type: partnerFailureTypes.requestNotFound, message: `no partner request ${issuerRequestId}`, nonRetryable: true });
    return request;
  }

  /** A halted chain watcher (a reorganisation past finality): nothing irreversible on that chain until an operator resumes it; retried meanwhile. */
  async function refuseWhileWatcherHalted(chain: string): Promise<void> {
    if ((await readWatcherCursor(db, chain))?.status === 'halted') {
      throw ApplicationFailure.create({ type: chainFailureTypes.watcherHalted, message: `the ${chain} watcher is halted: the mint waits until an operator resumes it` });
    }
  }

  function requireBroker(): BrokerClient {
    if (!deps.broker) throw ApplicationFailure.create({ type: partnerFailureTypes.brokerNotConfigured, message: 'this worker has no broker configured (BROKER_URL)' });
    return deps.broker;
  }

  /** A broker call; its failure (the message says what the broker answered) is retried with the activity's backoff. */
  async function callBroker<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof BrokerCallFailed) throw ApplicationFailure.create({ type: partnerFailureTypes.brokerCallFailed, message: error.message });
      throw error;
    }
  }

  return {
    async loadPartnerRequest(input: { issuerRequestId: string }): Promise<PartnerRequestSnapshot> {
      return snapshotOf(await requireRequest(input.issuerRequestId));
    },

    /**
     * Moves the request to `state` if it is in one of `from` (with `unconfirmed`, only while no broker confirm is
     * stored: a mint timing out never overrides a confirm that just landed); answers where it stands afterwards.
     */
    async setPartnerRequestState(input: {
      issuerRequestId: string;
      state: PartnerRequestState;
      from: PartnerRequestState[];
      reason?: string | null;
      unconfirmed?: boolean;
    }): Promise<PartnerRequestSnapshot> {
      const updated = await updatePartnerRequest(db, input.issuerRequestId, { state: input.state, reason: input.reason }, input.from, { unconfirmed: input.unconfirmed });
      if (!updated) throw ApplicationFailure.create({ type: partnerFailureTypes.requestNotFound, message: `no partner request ${input.issuerRequestId}`, nonRetryable: true });
      return snapshotOf(updated);
    },

    async partnerSettlementHold(input: { tokenSymbol: string }): Promise<SettlementHold | null> {
      const market = await getMarketState(db);
      if (market.paused) return { code: 'MARKET_PAUSED', message: `market paused: ${market.reason ?? 'by the operator'}` };
      const now = Date.now();
      const paused = (await listCurrentAssetEvents(db, now, input.tokenSymbol)).find((event) => event.code === 'ASSET_PAUSED' && event.startsAt <= now);
      return paused ? { code: 'ASSET_PAUSED', message: `${input.tokenSymbol} paused: ${paused.reason}` } : null;
    },

    /**
     * Mints the confirmed request's tokens with `processMint`, once: the amount is fixed at the first attempt (qty ÷
     * the multiplier then in force) and the transaction is signed and stored before it is sent, so a retry re-sends
     * the same bytes; it answers once the transaction's block is final (sending the same bytes again if a
     * reorganisation drops it), the tx hash stored on the request as soon as it is included, and not while the
     * chain's watcher is halted. `attempt` names the try (a new one after an operator resumed a refused mint). The
     * contract's refusal is answered as `refused` with its error name, nothing sent; with `review`, the request is
     * also stored `needs_review` with that reason (where operators list what waits for them).
     */
    async mintPartnerTokens(input: { issuerRequestId: string; attempt: number; review?: boolean }): Promise<MintOutcome> {
      const found = await requireRequest(input.issuerRequestId);
      if ((found.state === 'minted' || found.state === 'completed') && found.txHash) return { outcome: 'minted', txHash: found.txHash };
      if (found.state !== 'confirmed') {
        throw ApplicationFailure.create({ message: `partner mint ${input.issuerRequestId} is ${found.state}, not confirmed`, nonRetryable: true });
      }
      const context = deps.chains?.chains[found.chain as EvmChain];
      const deployment = await findChainDeployment(db, found.chain);
      if (!deps.chains || !context || !deployment) {
        throw ApplicationFailure.create({ type: chainFailureTypes.notConfigured, message: `this worker cannot mint on ${found.chain}` });
      }
      if (found.tokenAmount === null) {
        const multiplier = (await multipliersAt(db, Date.now())).get(found.tokenSymbol) ?? '1';
        const amount = tokensForShares(found.qty!, multiplier);
        await fixPartnerMintAmount(db, found.issuerRequestId, { tokenAmount: amount.toString(), sharesMultiplier: multiplier });
      }
      const request = await requireRequest(input.issuerRequestId);
      const signed = request.mintRequest!;
      await refuseWhileWatcherHalted(request.chain);
      try {
        const sent = await sendTransactionOnce(db, {
          key: `${partnerMintWorkflowId(request.issuerRequestId)}:processMint:${input.attempt}`,
          network: context.network,
          client: context.client,
          account: deps.chains.issuer,
          to: deployment.issuer,
          abi: issuerAbi,
          functionName: 'processMint',
          args: [
            {
              tokenizationRequestId: request.tokenizationRequestId!,
              underlyingSymbol: request.underlyingSymbol,
              tokenSymbol: request.tokenSymbol,
              qty: BigInt(new Decimal(request.qty!).times(1e9).toFixed(0)),
              wallet: getAddress(request.wallet),
              network: networkOfChain(request.chain),
              clientAccountId: request.clientId!,
              created: BigInt(signed.created),
              nonce: BigInt(signed.nonce),
            },
            signed.brokerSignature as Hex,
            BigInt(request.tokenAmount!),
          ],
          // The broker is called back once the mint is final: until then the request shows the transaction awaiting finality.
          finality: context.finality,
          onWait: () => Context.current().heartbeat(),
          onIncluded: (txHash) => updatePartnerRequest(db, request.issuerRequestId, { txHash }, ['confirmed']),
        });
        if (sent.status !== 'success') return await refused(`transaction ${sent.txHash} reverted`);
        await refuseWhileWatcherHalted(request.chain);
        await updatePartnerRequest(db, request.issuerRequestId, { state: 'minted', txHash: sent.txHash, reason: null }, ['confirmed']);
        return { outcome: 'minted', txHash: sent.txHash };
      } catch (error) {
        if (error instanceof TransactionWouldRevertError) return await refused(`the issuer contract refuses: ${error.reason ?? error.message}`);
        throw error;
      }

      async function refused(reason: string): Promise<MintOutcome> {
        if (input.review) await updatePartnerRequest(db, input.issuerRequestId, { state: 'needs_review', reason }, ['confirmed']);
        return { outcome: 'refused', reason };
      }
    },

    /**
     * The broker's callback for the request: the mint's tokens are in the wallet, or the redemption's shares are owed.
     * A failure is retried with the activity's backoff; with `reportRefusals`, a refusal the broker will repeat (a 4xx
     * but 408, 409, 425, 429) is answered instead, for the workflow to count.
     */
    async callBrokerBack(input: { issuerRequestId: string; reportRefusals?: boolean }): Promise<CallbackOutcome | undefined> {
      const broker = requireBroker();
      const request = await requireRequest(input.issuerRequestId);
      const network = networkOfChain(request.chain);
      const call =
        request.kind === 'mint'
          ? () =>
              broker.mintCallback(request.issuerRequestId, {
                tokenization_request_id: request.tokenizationRequestId!,
                client_id: request.clientId!,
                wallet_address: getAddress(request.wallet),
                tx_hash: request.txHash!,
                network,
              })
          : () =>
              broker.redeemCallback({
                issuer_request_id: request.issuerRequestId,
                underlying_symbol: request.underlyingSymbol,
                token_symbol: request.tokenSymbol,
                client_id: request.clientId!,
                qty: request.qty!,
                network,
                wallet_address: getAddress(request.wallet),
                tx_hash: request.txHash!,
              });
      try {
        await call();
      } catch (error) {
        if (input.reportRefusals && error instanceof BrokerCallFailed && error.refused) return { outcome: 'refused', status: error.status!, answer: error.answer ?? '' };
        if (error instanceof BrokerCallFailed) throw ApplicationFailure.create({ type: partnerFailureTypes.brokerCallFailed, message: error.message });
        throw error;
      }
      if (request.kind === 'redeem') await updatePartnerRequest(db, request.issuerRequestId, { state: 'delivering' }, ['pending']);
      return input.reportRefusals ? { outcome: 'delivered' } : undefined;
    },

    /** The broker's record of the redemption: `missing` until the callback landed. */
    async brokerRedemptionStatus(input: { issuerRequestId: string }): Promise<'pending' | 'completed' | 'rejected' | 'missing'> {
      const broker = requireBroker();
      return (await callBroker(() => broker.findByIssuerRequestId(input.issuerRequestId, 'redeem')))?.status ?? 'missing';
    },

    /**
     * Opens the partner side of a burn: the client linked to the wallet (the wallet enabled for the flow, its client
     * linked to a partner account), or `needs_review` when there is none. Once per redemption.
     */
    async openPartnerRedemption(input: { redemptionId: string }): Promise<PartnerRequestSnapshot> {
      const redemption = await findRedemptionToDeliver(db, input.redemptionId);
      if (!redemption) throw ApplicationFailure.create({ type: partnerFailureTypes.requestNotFound, message: `no redemption ${input.redemptionId}`, nonRetryable: true });
      const request = await insertPartnerRedemption(db, {
        redemptionId: input.redemptionId,
        clientId: redemption.clientId,
        chain: redemption.chain,
        underlyingSymbol: redemption.ticker ?? 'UNKNOWN',
        tokenSymbol: redemption.symbol ?? 'UNKNOWN',
        wallet: redemption.wallet,
        tokenAmount: redemption.amount,
        txHash: redemption.txHash,
      });
      return snapshotOf(request);
    },

    /**
     * Counts the redemption against the redemption limit of the session running at `at` (the workflow's clock), once:
     * the shares owed (tokens × the multiplier then, rounded down to 9 decimals, the dust recorded) at the
     * underlying's latest price. Over the limit it answers when to try again — burnt tokens are never refused.
     */
    async reservePartnerRedemption(input: { issuerRequestId: string; at: number }): Promise<RedemptionReservation> {
      const request = await requireRequest(input.issuerRequestId);
      return await inTransaction(db, async (client): Promise<RedemptionReservation> => {
        await lockPartnerLimit(client, 'redeem', request.underlyingSymbol);
        if ((await findPartnerRequest(client, input.issuerRequestId, { forUpdate: true }))!.sessionStart !== null) return { outcome: 'reserved' };
        // A transition pause is on the off-hours track: its limit is the off-hours one, measured from the pause's start.
        const interval = sessionIntervalAt(input.at);
        const session = { ...interval, session: limitsSessionOf(interval.session) };
        const limit = await findPartnerSessionLimit(client, request.underlyingSymbol, session.session, 'redeem');
        const largestLimit = await largestPartnerSessionLimit(client, request.underlyingSymbol, 'redeem');
        if (limit === undefined || largestLimit === null) return { outcome: 'review', reason: `${request.underlyingSymbol} has no redemption limits in the partner flow` };

        const multiplier = (await multipliersAt(client, input.at)).get(request.tokenSymbol) ?? '1';
        const { shares, dust } = sharesForTokens(request.tokenAmount!, multiplier);
        if (new Decimal(shares).isZero()) {
          await updatePartnerRequest(client, request.issuerRequestId, { shareDust: dust, sharesMultiplier: multiplier });
          return { outcome: 'dust' };
        }
        const price = await findLatestPrice(client, request.tokenSymbol);
        if (!price) throw ApplicationFailure.create({ message: `no price of ${request.tokenSymbol} to measure the redemption limit with` });
        const notional = notionalUsd(shares, price.underlyingPrice);
        if (new Decimal(notional).gt(largestLimit)) {
          return { outcome: 'review', reason: `${shares} ${request.underlyingSymbol} (${notional} USD) exceeds every session's redemption limit` };
        }
        const used = await partnerSessionUsage(client, 'redeem', request.underlyingSymbol, session.start);
        if (new Decimal(used).plus(notional).gt(limit)) {
          return { outcome: 'wait', until: session.end, reason: `the ${session.session} session's redemption limit (${limit} USD) is used up to ${used} USD` };
        }
        await updatePartnerRequest(client, request.issuerRequestId, { qty: shares, shareDust: dust, sharesMultiplier: multiplier, sessionStart: session.start, notionalUsd: notional });
        return { outcome: 'reserved' };
      });
    },
  };
}

export type PartnerActivities = ReturnType<typeof createPartnerActivities>;
