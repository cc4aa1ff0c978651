/** The answers of the reserves resource: the proof of reserves per asset, its history, hedges and pauses. */
import { z } from 'zod';

const decimal = (description: string) => z.string().describe(description);

export const reserveAssetSchema = z.object({
  underlying: z.string().describe('The broker symbol of the shares backing the token, e.g. `AAPL`.'),
  symbol: z.string().describe('The token, e.g. `AAPLon`.'),
  sharesMultiplier: decimal('Shares per token now.'),
  tokens: z.object({
    total: decimal('Tokens in circulation on every chain (decimal string).'),
    byChain: z.record(z.string(), z.string()).describe('Tokens per chain, e.g. `{"ethereum-1": "12.5", "bsc-56": "0"}`.'),
    blocks: z.record(z.string(), z.number().int()).describe('The final block each chain supply was read at.'),
  }),
  sharesRequired: decimal('tokens.total × sharesMultiplier.'),
  sharesHeld: decimal("The issuer account's position at the broker."),
  inFlight: z.object({
    hedges: decimal('Shares owed by final attestation trades not yet filled at the broker (buys positive, sells negative).'),
    redemptions: decimal('Shares of final burns not yet delivered to the participant (held, no longer required).'),
    partnerMints: decimal('Shares received for partner mints whose tokens are not in the supply read yet: not minted, or minted above the block read (held, not yet required).'),
  }),
  review: decimal('Shares owed by hedge orders the broker rejected for good (under review; not in flight).'),
  shortfall: decimal('sharesRequired − (sharesHeld + hedges − redemptions − partnerMints), at least 0.'),
  coverage: decimal('(sharesHeld + hedges − redemptions − partnerMints) ÷ sharesRequired, 6 decimals; `1` with nothing required.'),
  status: z.enum(['covered', 'short']).describe('`short`: the shortfall exceeds the tolerance (RESERVES_TOLERANCE_BPS, at least 1e-9 share); minting of the asset is then refused with `RESERVES_SHORT`.'),
});
export type ReserveAssetView = z.infer<typeof reserveAssetSchema>;

export const reservesSchema = z.object({
  timestamp: z.number().int().nullable().describe('When these figures were computed (epoch ms); null before the first computation.'),
  assets: z.array(reserveAssetSchema),
});
export type Reserves = z.infer<typeof reservesSchema>;

export const reserveHistorySchema = z.object({
  underlying: z.string(),
  snapshots: z.array(reserveAssetSchema.extend({ timestamp: z.number().int() })).describe('Newest first.'),
});
export type ReserveHistory = z.infer<typeof reserveHistorySchema>;

export const hedgesSchema = z.object({
  trades: z.array(
    z.object({
      chain: z.string(),
      txHash: z.string(),
      logIndex: z.number().int(),
      attestationId: z.string(),
      symbol: z.string(),
      underlying: z.string(),
      side: z.enum(['buy', 'sell']),
      tokens: z.string(),
      sharesMultiplier: z.string(),
      shares: z.string().describe('tokens × sharesMultiplier, exact; orders round to 9 decimals and carry the rest.'),
      attestedSharePrice: z.string().describe('The attested token price ÷ sharesMultiplier (USD per share).'),
      batchId: z.string().nullable(),
      orderState: z.string().nullable().describe('`pending`, `filled`, `canceled` (the rest carried to the next batch) or `review`; null until batched.'),
      clientOrderId: z.string().nullable(),
      fillPrice: z.string().nullable().describe("The order's average fill price."),
      slippageBps: z.string().nullable().describe("The issuer's slippage against the attested price, basis points (positive: a cost)."),
      owedAt: z.number().describe('When the execution became final (epoch ms).'),
      filledAt: z.number().nullable(),
    }),
  ),
  orders: z.array(
    z.object({
      batchId: z.string(),
      side: z.enum(['buy', 'sell']),
      underlying: z.string(),
      clientOrderId: z.string(),
      sharesOwed: z.string(),
      qty: z.string(),
      state: z.enum(['pending', 'filled', 'canceled', 'review']),
      brokerOrderId: z.string().nullable(),
      filledQty: z.string(),
      filledAvgPrice: z.string().nullable(),
      lastError: z.string().nullable().describe('Why a pending order waits (market or asset paused, broker closed or down).'),
      reason: z.string().nullable().describe("The broker's reason, for an order in review."),
      createdAt: z.number(),
      filledAt: z.number().nullable(),
    }),
  ),
  pauses: z.array(z.object({ symbol: z.string(), shortfall: z.string(), since: z.number(), reason: z.string() })).describe('Assets whose minting is paused for their reserves.'),
});
export type Hedges = z.infer<typeof hedgesSchema>;
