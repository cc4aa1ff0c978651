/**
 * The sandbox's own work on a request, one step at a time, each idempotent and recorded before the next:
 * a mint is submitted to the issuer (the stored body, every time), its shares journalled from the participant
 * to the issuer's account, and the journal confirmed to the issuer; a redemption's shares are journalled back
 * from the issuer's account to the participant's. A step that cannot finish now is scheduled again with backoff.
 */
import type { Pool } from 'pg';
import type { Logger } from '../../config/logger';
import { inTransaction } from '../../db/pool';
import type { IssuerClient } from '../issuer-client';
import { findIssuerAccount } from '../queries/accounts';
import { moveShares } from '../queries/journal';
import { findRequest, recordStep, type StepUpdate, type TokenizationRequest } from '../queries/requests';

export interface StepContext {
  db: Pool;
  logger: Logger;
  issuer: IssuerClient;
  /** This processor's lease owner id. */
  owner: string;
  /** How long after `attempts` failed ones the next attempt is due. */
  retryDelayMs(attempts: number): number;
}

export async function runStep(context: StepContext, request: TokenizationRequest): Promise<void> {
  if (request.type === 'mint') {
    if (request.step === 'submit') return submitMint(context, request);
    if (request.step === 'journal') return journalShares(context, request);
    if (request.step === 'confirm') return confirmMint(context, request);
  } else if (request.step === 'journal') {
    return journalShares(context, request);
  }
  throw new Error(`request ${request.tokenizationRequestId}: no step ${request.step} for a ${request.type}`);
}

function retry(context: StepContext, request: TokenizationRequest, error: string): StepUpdate {
  context.logger.warn({ tokenizationRequestId: request.tokenizationRequestId, step: request.step, attempts: request.attempts + 1, error }, 'broker step will be retried');
  return { retryInMs: context.retryDelayMs(request.attempts), lastError: error };
}

async function submitMint(context: StepContext, request: TokenizationRequest): Promise<void> {
  const answer = await context.issuer.submitIssuance(request.submission!, request.tokenizationRequestId);
  let update: StepUpdate;
  if (answer.kind === 'accepted') {
    const issuerRequestId = answer.body.issuer_request_id;
    update =
      typeof issuerRequestId === 'string' && issuerRequestId.length > 0
        ? { step: 'journal', issuerRequestId }
        : retry(context, request, `issuance answered ${answer.status} without an issuer_request_id`);
  } else if (answer.kind === 'refused') {
    update = { step: 'done', status: 'rejected', transferStatus: 'rejected', reason: `${answer.code}: ${answer.message}`, lastError: null };
  } else {
    update = retry(context, request, answer.error);
  }
  await recordStep(context.db, request.tokenizationRequestId, context.owner, update);
}

/** Mint: participant → issuer account; redeem: issuer account → participant. One journal row per request. */
async function journalShares(context: StepContext, request: TokenizationRequest): Promise<void> {
  await inTransaction(context.db, async (client) => {
    const current = await findRequest(client, request.tokenizationRequestId, { forUpdate: true });
    if (!current || current.step !== 'journal') return;
    const issuerAccount = await findIssuerAccount(client);
    if (!issuerAccount) throw new Error('the sandbox has no issuer account: run seedBrokerSandbox');
    const mint = request.type === 'mint';
    const outcome = await moveShares(client, {
      fromAccount: mint ? request.accountId : issuerAccount.accountId,
      toAccount: mint ? issuerAccount.accountId : request.accountId,
      symbol: request.underlyingSymbol,
      qty: request.qty,
      reason: request.type,
      tokenizationRequestId: request.tokenizationRequestId,
      idempotencyKey: `${request.type}:${request.tokenizationRequestId}`,
    });
    let update: StepUpdate;
    if (outcome.outcome !== 'insufficient') {
      update = mint
        ? { step: 'confirm', transferStatus: 'completed', confirmStatus: 'completed', lastError: null }
        : { step: 'done', status: 'completed', transferStatus: 'completed', lastError: null };
    } else if (mint) {
      const reason = `insufficient position: ${request.qty} ${request.underlyingSymbol} requested, ${outcome.available} available`;
      update = { step: 'confirm', status: 'rejected', transferStatus: 'rejected', confirmStatus: 'rejected', reason, lastError: null };
    } else {
      // Burned tokens are owed their shares: wait for the issuer's account to hold them rather than refuse.
      update = retry(context, request, `issuer account holds ${outcome.available} ${request.underlyingSymbol}, ${request.qty} owed`);
    }
    await recordStep(client, request.tokenizationRequestId, context.owner, update);
  });
}

/** The confirm body: the same bytes on every attempt. */
export function confirmBody(request: Pick<TokenizationRequest, 'tokenizationRequestId' | 'issuerRequestId' | 'confirmStatus' | 'reason'>): string {
  return JSON.stringify({
    tokenization_request_id: request.tokenizationRequestId,
    issuer_request_id: request.issuerRequestId,
    status: request.confirmStatus,
    ...(request.confirmStatus === 'rejected' ? { reason: request.reason } : {}),
  });
}

async function confirmMint(context: StepContext, request: TokenizationRequest): Promise<void> {
  const answer = await context.issuer.confirmIssuance(confirmBody(request), request.tokenizationRequestId);
  let update: StepUpdate;
  if (answer.kind === 'accepted') {
    update = { step: 'done', lastError: null };
  } else if (answer.kind === 'refused') {
    context.logger.error({ tokenizationRequestId: request.tokenizationRequestId, status: answer.status, code: answer.code, message: answer.message }, 'issuer refused the issuance confirm');
    update = { step: 'done', lastError: `confirm refused (${answer.status} ${answer.code}): ${answer.message}` };
  } else {
    update = retry(context, request, answer.error);
  }
  await recordStep(context.db, request.tokenizationRequestId, context.owner, update);
}
