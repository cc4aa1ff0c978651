/**
 * POST /v1/accounts/{account_id}/tokenization/callback/redeem (issuer, under its own account) — the issuer saw tokens
 * burnt: a redeem record `pending` (201) in the participant account linked to `client_id` (404 CLIENT_NOT_LINKED
 * when none is), whose shares the processor then journals from the issuer's account back to the participant's
 * before marking it `completed`. A duplicate (same `Idempotency-Key` replays the 201; the same
 * `issuer_request_id` with the same fields answers the record with 200) has one effect; the same
 * `issuer_request_id` with other fields is 409.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { Decimal } from '../../domain/money';
import { BrokerError } from '../errors';
import { accountParams, FIELD_CODES, identifierSchema, networkSchema, qtySchema, tokenSymbolOf, txHashSchema, underlyingSymbolSchema, walletSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import { idempotencyKeyOf, idempotentWrite, requestFingerprint, respond } from '../framework/idempotency';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { findAccountByClientId } from '../queries/accounts';
import { insertRedeemRequest, requestView } from '../queries/requests';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';

const redeemCallbackBody = z
  .strictObject({
    issuer_request_id: identifierSchema,
    underlying_symbol: underlyingSymbolSchema,
    token_symbol: z.string({ error: 'must be a string' }),
    client_id: identifierSchema,
    qty: qtySchema,
    network: networkSchema,
    wallet_address: walletSchema,
    tx_hash: txHashSchema,
  })
  .refine((body) => body.token_symbol === tokenSymbolOf(body.underlying_symbol), {
    path: ['token_symbol'],
    message: 'must be the underlying symbol followed by "on"',
  });

export function redeemCallbackRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const key = idempotencyKeyOf(ctx);
    const raw = await readJsonBody(ctx, services.bodyLimitBytes);
    const body = parseBody(redeemCallbackBody, raw, FIELD_CODES);
    await requireAccount(services.db, ctx, accountId);
    // The issuer names its client, never the sandbox account: the shares go back to whichever account it is linked to.
    const participant = await findAccountByClientId(services.db, body.client_id);
    if (!participant) throw new BrokerError('CLIENT_NOT_LINKED', `No account is linked to client_id ${body.client_id}`);
    const qty = new Decimal(body.qty).toFixed();

    const response = await idempotentWrite(
      services.db,
      { scope: `callback-redeem:${accountId}`, key, fingerprint: requestFingerprint(ctx.path, raw) },
      async (client) => {
        const { created, request } = await insertRedeemRequest(client, {
          tokenizationRequestId: randomUUID(),
          accountId: participant.accountId,
          underlyingSymbol: body.underlying_symbol,
          tokenSymbol: body.token_symbol,
          qty,
          issuer: services.issuerId,
          network: body.network,
          walletAddress: body.wallet_address,
          issuerRequestId: body.issuer_request_id,
          txHash: body.tx_hash,
        });
        if (created) return { status: 201, body: requestView(request) };
        const same =
          request.accountId === participant.accountId &&
          request.underlyingSymbol === body.underlying_symbol &&
          request.qty === qty &&
          request.network === body.network &&
          request.walletAddress === body.wallet_address &&
          request.txHash === body.tx_hash;
        if (!same) throw new BrokerError('REQUEST_CONFLICT', `Redemption ${body.issuer_request_id} was already called back with other fields`);
        return { status: 200, body: requestView(request) };
      },
    );
    respond(ctx, response);
    if (response.status === 201 && !response.replayed) services.wake();
  };
}
