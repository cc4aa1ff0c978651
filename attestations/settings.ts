/** Attestation limits and pricing guards from configuration. */
import type { AttestationSettings } from './issue-attestation';
import type { Config } from '../config';
import { Decimal } from '../domain/money';

export type AttestationConfig = Pick<Config, 'QUOTE_MAX_PRICE_AGE_MS' | 'LIMITED_MAX_ORDER_NOTIONAL' | 'OFFHOURS_GLOBAL_EXPOSURE_LIMIT' | 'OFFHOURS_ASSET_EXPOSURE_LIMIT'>;

export function attestationSettings(config: AttestationConfig): AttestationSettings {
  return {
    maxPriceAgeMs: config.QUOTE_MAX_PRICE_AGE_MS,
    limitedMaxOrderNotional: new Decimal(config.LIMITED_MAX_ORDER_NOTIONAL),
    offhoursGlobalExposure: new Decimal(config.OFFHOURS_GLOBAL_EXPOSURE_LIMIT),
    offhoursAssetExposure: new Decimal(config.OFFHOURS_ASSET_EXPOSURE_LIMIT),
  };
}
