/**
 * POST /v1/accounts/{account_id}/tokenization/callback/mint (issuer, under its own account) — the issuer minted:
 * the pending mint (any participant's) whose shares were journalled turns `completed` with the transaction hash.
 * 200 with the record. `client_id` must be the one linked to the mint's participant account. A duplicate (same
 * `Idempotency-Key`, or the same request and tx hash again) has one effect; a contradicting one is 409.
 */
import type { Middleware } from 'koa';
import type { PoolClient } from 'pg';
import { z } from 'zod';
import { BrokerError } from '../errors';
import { accountParams, FIELD_CODES, identifierSchema, networkSchema, txHashSchema, uuidSchema, walletSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import { idempotencyKeyOf, idempotentWrite, requestFingerprint, respond } from '../framework/idempotency';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { findAccount } from '../queries/accounts';
import { completeMint, findRequest, requestView, type TokenizationRequest } from '../queries/requests';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';

const mintCallbackBody = z.strictObject({
  tokenization_request_id: uuidSchema,
  client_id: identifierSchema,
  wallet_address: walletSchema,
  tx_hash: txHashSchema,
  network: networkSchema,
});
type MintCallbackBody = z.infer<typeof mintCallbackBody>;

export function mintCallbackRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const key = idempotencyKeyOf(ctx);
    const raw = await readJsonBody(ctx, services.bodyLimitBytes);
    const body = parseBody(mintCallbackBody, raw, FIELD_CODES);
    await requireAccount(services.db, ctx, accountId);

    const response = await idempotentWrite(
      services.db,
      { scope: `callback-mint:${accountId}`, key, fingerprint: requestFingerprint(ctx.path, raw) },
      async (client) => {
        const record = await lockedMint(client, body);
        const id = record.tokenizationRequestId;
        if (record.walletAddress !== body.wallet_address || record.network !== body.network) {
          throw new BrokerError('REQUEST_CONFLICT', `Mint ${id} was requested for ${record.walletAddress} on ${record.network}`);
        }
        if (record.status === 'completed') {
          if (record.txHash !== body.tx_hash) throw new BrokerError('REQUEST_CONFLICT', `Mint ${id} already completed with tx ${record.txHash}`);
          return { status: 200, body: requestView(record) };
        }
        if (record.status === 'rejected') throw new BrokerError('REQUEST_CONFLICT', `Mint ${id} was rejected: ${record.reason ?? ''}`);
        const completed = await completeMint(client, id, body.tx_hash);
        if (!completed) throw new BrokerError('REQUEST_CONFLICT', `The shares of mint ${id} are not journalled yet`);
        return { status: 200, body: requestView(completed) };
      },
    );
    respond(ctx, response);
  };
}

/**
 * The mint the callback names, locked for the update, once its participant account is the one linked to the
 * callback's `client_id` (the issuer knows its client, not the sandbox account the mint was made in).
 */
async function lockedMint(client: PoolClient, body: MintCallbackBody): Promise<TokenizationRequest> {
  const id = body.tokenization_request_id;
  const record = await findRequest(client, id, { forUpdate: true });
  if (!record || record.type !== 'mint') throw new BrokerError('REQUEST_NOT_FOUND', `No mint request ${id}`);
  const participant = await findAccount(client, record.accountId);
  if (participant?.clientId !== body.client_id) throw new BrokerError('CLIENT_MISMATCH', `client_id ${body.client_id} is not linked to the account of mint ${id}`);
  return record;
}
