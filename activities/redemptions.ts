/**
 * Redemption activities: record a burn seen on chain (one IssuerRedeem log) as a `pending` redemption, once,
 * with the catalogue symbol of the burned token. The partner flow carries it on from there.
 */
import type { Database } from '../db/pool';
import { tokenSymbolOf } from '../db/queries/chain-deployments';
import { recordRedemption, type RedemptionRecord } from '../db/queries/redemptions';
import type { RedemptionInput } from '../temporal/messages';

export interface RedemptionActivityDependencies {
  db: Database;
}

export function createRedemptionActivities({ db }: RedemptionActivityDependencies) {
  return {
    /** Records the redemption as `pending`; a retry (or a second workflow for the same log) answers the row already there. */
    async recordPendingRedemption(input: RedemptionInput & { redemptionId: string }): Promise<RedemptionRecord> {
      return await recordRedemption(db, {
        redemptionId: input.redemptionId,
        chain: input.chain,
        txHash: input.txHash as `0x${string}`,
        logIndex: input.logIndex,
        blockNumber: input.blockNumber,
        blockTime: input.blockTime,
        wallet: input.wallet.toLowerCase() as `0x${string}`,
        userId: input.userId as `0x${string}`,
        token: input.token as `0x${string}`,
        symbol: (await tokenSymbolOf(db, input.chain, input.token)) ?? null,
        amount: input.amount,
        usdNotional: input.usdNotional,
      });
    },
  };
}

export type RedemptionActivities = ReturnType<typeof createRedemptionActivities>;
