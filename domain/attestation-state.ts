/**
 * Lifecycle of an attestation: `outstanding` until its execution is seen on chain (`executing`, still counted against
 * every limit), then `executed` once that block is final — or back to `outstanding` if the block left the chain — or
 * `expired` when nothing final executed it in time.
 */
export type AttestationState = 'outstanding' | 'executing' | 'executed' | 'expired';
