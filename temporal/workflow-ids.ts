/** Workflow ids are business keys: starting the same business process twice finds the running one. */

/** The single candle-retention workflow of a deployment. */
export const MARKET_DATA_RETENTION_WORKFLOW_ID = 'market-data-retention';

/** The lifecycle workflow of one attestation. */
export function attestationWorkflowId(attestationId: string): string {
  return `attestation-${attestationId}`;
}

/** The watcher of one EVM chain (by its bare chain id, e.g. `chain-watcher-1`). */
export function chainWatcherWorkflowId(chainId: number): string {
  return `chain-watcher-${chainId}`;
}

/** The watcher of the Solana ledger, by the chain's named id (`chain-watcher-solana-900`). */
export const SOLANA_CHAIN_WATCHER_WORKFLOW_ID = 'chain-watcher-solana-900';

/** One redemption: one IssuerRedeem log, named by where it is on chain. */
export function redemptionWorkflowId(chainId: number, txHash: string, logIndex: number): string {
  return `redemption-${chainId}-${txHash.toLowerCase()}-${logIndex}`;
}

/** One change of a wallet's registration (`version`: when it was asked for, epoch ms). */
export function walletRegistrationWorkflowId(chain: string, address: string, version: number): string {
  return `wallet-registration-${chain}-${address.toLowerCase()}-${version}`;
}

/** The settlement of one partner mint. */
export function partnerMintWorkflowId(issuerRequestId: string): string {
  return `partner-mint-${issuerRequestId}`;
}

/** The single proof-of-reserves workflow of a deployment. */
export const RESERVES_WORKFLOW_ID = 'reserves';

/** The hedging workflow of one underlying (its broker symbol, e.g. `hedge-AAPL`). */
export function hedgeWorkflowId(underlying: string): string {
  return `hedge-${underlying}`;
}

/** The single workflow keeping the Solana nonce pool full and swept. */
export const SOLANA_NONCE_POOL_WORKFLOW_ID = 'solana-nonce-pool';

/** The delivery workflow of one webhook endpoint (`webhook-endpoint-wh_…`). */
export function webhookEndpointWorkflowId(endpointId: string): string {
  return `webhook-endpoint-${endpointId}`;
}
