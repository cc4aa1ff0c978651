/**
 * The brokerage sandbox: a stand-in for the partner's staging sandbox (accounts, positions, a share journal,
 * the authorized-participant tokenization endpoints, the issuer's callbacks, and the mint flow it drives against
 * the issuer's partner API). What `npm start` and the tests use.
 */
export { startBroker, type RunningBroker, type StartBrokerOptions } from './start-broker';
export {
  seedBrokerSandbox,
  sandboxAccountId,
  ISSUER_ACCOUNT_ID,
  ISSUER_ACCOUNT_NUMBER,
  DEVELOPMENT_PARTICIPANT,
  DEVELOPMENT_SYMBOLS,
  type ParticipantSeed,
  type SandboxAccount,
  type SeedBrokerSandboxOptions,
  type SeededSandbox,
} from './seed';
export { brokerStackEntry, type BrokerStackEntry } from './stack-entry';
export { BROKER_MIGRATIONS } from './migrate';
export { storeCredential, type Credential, type CredentialRole } from './queries/credentials';
export { linkClient, accountPositions, type LinkOutcome } from './queries/accounts';
export { newBrokerCredential } from './credentials';
export { mintRequestTypedData, signMintRequest, scaledQty, MINT_REQUEST_TYPES, type MintRequestFields } from './mint-signature';
export { BROKER_ERROR_CODES, type BrokerErrorCode } from './errors';
export type { IssuerContracts } from './services';
export type { RequestView } from './queries/requests';
export type { AccountView } from './routes/get-account';
