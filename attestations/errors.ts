/** Why an attestation or quote was refused: the API error code it leaves with, and a message. */
import type { ErrorCode } from '../domain/error-codes';

export class AttestationRefused extends Error {
  override readonly name = 'AttestationRefused';

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Headers the refusal leaves with (`Retry-After` on a 503 that passes). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
