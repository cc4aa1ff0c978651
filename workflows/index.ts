/**
 * Entry point of the worker's workflow bundle: every workflow the issuer runs is exported from here.
 * Workflow code is deterministic (see eslint.config.mjs); activities are imported as types only.
 */
export { attestationWorkflow } from './attestation';
export { marketDataRetentionWorkflow } from './market-data-retention';
export { chainWatcherWorkflow } from './chain-watcher';
export { redemptionWorkflow } from './redemption';
export { walletRegistrationWorkflow } from './wallet-registration';
export { partnerMintWorkflow } from './partner-mint';
export { hedgeWorkflow } from './hedging';
export { reservesWorkflow } from './reserves';
export { solanaNoncePoolWorkflow } from './solana-nonce-pool';
export { webhookEndpointWorkflow } from './webhook-endpoint';
