/**
 * POST /v1/accounts/{account_id}/tokenization/mint (participant) — records a mint request `pending`, signed with
 * the broker's EIP-712 key, and hands it to the processor, which submits it to the issuer, journals the shares
 * and confirms. 201 with the record. `Idempotency-Key`: a replay answers the first result with
 * `Idempotent-Replayed: true`; another body under the same key is 422.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { Decimal } from '../../domain/money';
import { BrokerError } from '../errors';
import { accountParams, FIELD_CODES, identifierSchema, networkSchema, qtySchema, tokenSymbolOf, underlyingSymbolSchema, walletSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import { idempotencyKeyOf, idempotentWrite, requestFingerprint, respond } from '../framework/idempotency';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { newMintNonce, signMintRequest } from '../mint-signature';
import { insertMintRequest, requestView } from '../queries/requests';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';

export const mintBody = z.strictObject({
  underlying_symbol: underlyingSymbolSchema,
  qty: qtySchema,
  issuer: identifierSchema,
  network: networkSchema,
  wallet_address: walletSchema,
  client_request_id: z.string({ error: 'must be a string' }).min(1).max(128).optional(),
});
export type MintBody = z.infer<typeof mintBody>;

export function mintRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const key = idempotencyKeyOf(ctx);
    const raw = await readJsonBody(ctx, services.bodyLimitBytes);
    const body = parseBody(mintBody, raw, FIELD_CODES);
    const account = await requireAccount(services.db, ctx, accountId);
    if (body.issuer !== services.issuerId) throw new BrokerError('UNKNOWN_ISSUER', `issuer must be ${services.issuerId}`);
    const verifyingContract = services.issuerContracts[body.network];
    if (!verifyingContract) throw new BrokerError('NETWORK_UNAVAILABLE', `The sandbox has no issuer contract on ${body.network}`);
    if (!account.clientId) throw new BrokerError('ACCOUNT_NOT_LINKED', `Account ${accountId} is not linked to the issuer`);
    const clientId = account.clientId;

    const response = await idempotentWrite(
      services.db,
      { scope: `mint:${accountId}`, key, fingerprint: requestFingerprint(ctx.path, raw) },
      async (client) => {
        const tokenizationRequestId = randomUUID();
        const qty = new Decimal(body.qty).toFixed();
        const tokenSymbol = tokenSymbolOf(body.underlying_symbol);
        const created = Math.floor(Date.now() / 1000);
        const nonce = newMintNonce();
        const signature = await signMintRequest(
          services.signer,
          {
            tokenizationRequestId,
            underlyingSymbol: body.underlying_symbol,
            tokenSymbol,
            qty,
            wallet: body.wallet_address,
            network: body.network,
            // The issuer rebuilds the request from the issuance body, which names the client, not the sandbox account.
            clientAccountId: clientId,
            created,
            nonce,
          },
          verifyingContract,
        );
        const submission = JSON.stringify({
          tokenization_request_id: tokenizationRequestId,
          qty,
          underlying_symbol: body.underlying_symbol,
          token_symbol: tokenSymbol,
          network: body.network,
          client_id: clientId,
          wallet_address: body.wallet_address,
          created,
          nonce: nonce.toString(),
          broker_signature: signature,
        });
        const record = await insertMintRequest(client, {
          tokenizationRequestId,
          accountId,
          underlyingSymbol: body.underlying_symbol,
          tokenSymbol,
          qty,
          issuer: body.issuer,
          network: body.network,
          walletAddress: body.wallet_address,
          clientRequestId: body.client_request_id ?? null,
          nonce: nonce.toString(),
          createdEpoch: created,
          brokerSignature: signature,
          submission,
        });
        return { status: 201, body: requestView(record) };
      },
    );
    respond(ctx, response);
    if (!response.replayed) services.wake();
  };
}
