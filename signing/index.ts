/**
 * Attestation signing: the `Quote`, its EIP-712 form for EVM chains and ed25519 form for Solana,
 * signer keys from configuration, and the public description of the signers.
 */
export {
  QUOTE_DECIMALS,
  QUOTE_LIMITS,
  QUOTE_SIDE,
  ZERO_BYTES32,
  InvalidQuoteError,
  assertEvmQuote,
  assertQuoteFields,
  type Quote,
  type QuoteSide,
} from './quote';
export {
  EIP712_DOMAIN_NAME,
  EIP712_DOMAIN_VERSION,
  QUOTE_TYPE,
  QUOTE_TYPES,
  evmDomain,
  hashEvmQuote,
  recoverEvmQuoteSigner,
  signEvmQuote,
  signEvmQuoteWithKey,
  type QuoteDomain,
  type TypedDataSigner,
} from './evm';
export { SOLANA_ATTESTATION_MESSAGE, isValidSolanaAddress, signSolanaMessage, solanaAddressBytes, solanaPublicKeyOf, type SolanaAddressOptions } from './solana';
export {
  DEV_KEY_FILE,
  SignerConfigurationError,
  loadSigners,
  signersFromKeys,
  type EvmSigner,
  type KeySource,
  type Signers,
  type SolanaSigner,
} from './keys';
export { EVM_KEY_VARIABLE, SOLANA_KEY_VARIABLE, type SignerKeys } from './key-schemas';
/** The EVM chain a quote is signed for (domain/chains.ts). */
export type { EvmChain } from '../domain/chains';
export { secp256k1Implementation, signDigest } from './secp256k1';
export { signerPublicInfo, type PublicDomain, type SignerPublicInfo } from './public-info';
export {
  SPL_MEMO_PROGRAM_ADDRESS,
  compileSolanaAttestationTransaction,
  signSolanaAttestationTransaction,
  solanaAttestationAmounts,
  solanaAttestationMemo,
  type SignSolanaMessage,
  type SignedSolanaAttestation,
  type SolanaAttestationAmounts,
  type SolanaAttestationTransactionInput,
  type SolanaIssuerAccounts,
} from './solana-transaction';
export { quoteOfAttestation, verifyAttestation, type AttestationFields, type Verification } from './verify-attestation';
export {
  verifySolanaAttestationTransaction,
  type SolanaAttestationFields,
  type SolanaTransactionVerification,
  type SolanaVerificationContext,
} from './verify-solana-transaction';
export { base64ToBytes, bytesToBase64, hexToBase64 } from './base64';
export { decodeBase58, encodeBase58 } from './base58';
