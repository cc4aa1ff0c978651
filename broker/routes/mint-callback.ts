/**
 * POST /v1/accounts/{account_id}/tokenization/callback/mint (issuer) — the issuer minted: the pending mint whose
 * shares were journalled turns `completed` with the transaction hash. 200 with the record. A duplicate (same
 * `Idempotency-Key`, or the same request and tx hash again) has one effect; a contradicting one is 409.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { BrokerError } from '../errors';
import { accountParams, FIELD_CODES, identifierSchema, networkSchema, txHashSchema, uuidSchema, walletSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import { idempotencyKeyOf, idempotentWrite, requestFingerprint, respond } from '../framework/idempotency';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { completeMint, findRequest, requestView } from '../queries/requests';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';

const mintCallbackBody = z.strictObject({
  tokenization_request_id: uuidSchema,
  client_id: identifierSchema,
  wallet_address: walletSchema,
  tx_hash: txHashSchema,
  network: networkSchema,
});

export function mintCallbackRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const key = idempotencyKeyOf(ctx);
    const raw = await readJsonBody(ctx, services.bodyLimitBytes);
    const body = parseBody(mintCallbackBody, raw, FIELD_CODES);
    const account = await requireAccount(services.db, ctx, accountId);
    if (account.clientId !== body.client_id) throw new BrokerError('CLIENT_MISMATCH', `client_id ${body.client_id} is not linked to account ${accountId}`);

    const response = await idempotentWrite(
      services.db,
      { scope: `callback-mint:${accountId}`, key, fingerprint: requestFingerprint(ctx.path, raw) },
      async (client) => {
        const id = body.tokenization_request_id;
        const record = await findRequest(client, id, { forUpdate: true });
        if (!record || record.accountId !== accountId || record.type !== 'mint') {
          throw new BrokerError('REQUEST_NOT_FOUND', `No mint request ${id} in account ${accountId}`);
        }
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
