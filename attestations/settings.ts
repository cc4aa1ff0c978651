/** Attestation limits and pricing guards from configuration. */
import type { AttestationSettings } from './issue-attestation';
import type { Config } from '../config';
import { Decimal } from '../domain/money';

export function attestationSettings(config: Config): AttestationSettings {
  return {
    maxPriceAgeMs: config.QUOTE_MAX_PRICE_AGE_MS,
    limitedMaxOrderNotional: new Decimal(config.LIMITED_MAX_ORDER_NOTIONAL),
    offhoursGlobalExposure: new Decimal(config.OFFHOURS_GLOBAL_EXPOSURE_LIMIT),
    offhoursAssetExposure: new Decimal(config.OFFHOURS_ASSET_EXPOSURE_LIMIT),
  };
}
