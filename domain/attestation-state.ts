/** Lifecycle of an attestation: `outstanding` until executed on chain or expired. */
export type AttestationState = 'outstanding' | 'executed' | 'expired';
