/**
 * tokenized-stock-issuer-client: the integrator's kit for the issuer's API. Ask for an attestation
 * (`createIssuerClient`), check it offline (`verifyAttestation`), get it on chain with the user's wallet
 * (`submitEvmAttestation`, `sendSolanaAttestation`), and learn when it landed (`verifyWebhook` on the receiving end,
 * or the streams).
 */
export { createIssuerClient, type AnswerOf, type BodyOf, type CallInit, type IssuerClient, type IssuerClientOptions } from './client.ts';
export { IssuerApiError, IssuerChainError, IssuerNetworkError, isIssuerError, type ErrorCode, type ErrorCodeOf } from './errors.ts';
export type { RetryClass, RetryPolicy } from './retry.ts';
export type { CandleEventData, PriceEventData, StreamItem, StreamOptions } from './streams.ts';
export { attestationAmounts, type Attestation, type AttestationFields, type Signers } from './attestation.ts';
export { verifyAttestation, evmQuoteOf, type Verification, type Signers as VerificationSigners } from './verify.ts';
export { submitEvmAttestation, type SettlementToken, type SubmitEvmAttestationParameters, type SubmitEvmAttestationReturnType } from './evm.ts';
export { completeSolanaAttestation, sendSolanaAttestation, type CompleteSolanaAttestationParameters, type SendSolanaAttestationParameters } from './solana.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export { OPERATIONS, type OperationId } from './generated/operations.ts';
export type { components, operations, paths, webhooks } from './generated/api.ts';
