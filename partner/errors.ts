/** Why a partner request was refused: the API error code it leaves with, and a message. */
import type { ErrorCode } from '../domain/error-codes';

export class PartnerRefused extends Error {
  override readonly name = 'PartnerRefused';

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
