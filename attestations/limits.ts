/**
 * The limits an order is checked against, and the headroom trading limits report: the user's
 * outstanding count and notional, the session notional, the issuer's off-hours exposure caps, and the
 * reduced order size of a limited asset. Pure: callers load usage and status.
 */
import type { Exposure, UserUsage } from '../db/queries/attestations';
import { Decimal } from '../domain/money';
import type { TradingStatus } from './trading-status';

/** The codes a limit refuses an order with (400, as the reference issuer answers them). */
export type LimitCode = 'MAX_ATTESTATIONS' | 'MAX_LIMIT_REACHED' | 'SESSION_LIMIT_REACHED' | 'OFFHOURS_EXPOSURE_LIMIT_REACHED';

/** Each cap an order is measured against: a limit, or the reduced order size of a limited asset (refused as `MAX_LIMIT_REACHED`). */
type Cap = LimitCode | 'LIMITED_ORDER_SIZE';

/** A limit an order breaks (or that leaves no room): its code and the message that says which cap it was. */
export interface LimitRefusal {
  code: LimitCode;
  message: string;
}

export interface LimitSettings {
  /** Largest order (USD notional) while an asset is ASSET_LIMITED. */
  limitedMaxOrderNotional: Decimal;
  /** Caps on the issuer's notional outstanding or executed within an off-hours session. */
  offhoursGlobalExposure: Decimal;
  offhoursAssetExposure: Decimal;
}

export interface Headroom {
  remainingAttestations: number;
  /** Largest further notional allowed (never negative). */
  maxNotional: Decimal;
  /** The limit that leaves no room, if one does. */
  exhausted?: LimitRefusal;
}

const MESSAGES: Record<Cap, string> = {
  LIMITED_ORDER_SIZE: 'The asset is limited: the order exceeds the reduced maximum order size',
  MAX_ATTESTATIONS: 'Maximum number of outstanding attestations for this asset reached',
  MAX_LIMIT_REACHED: 'The order would exceed the maximum active notional value',
  SESSION_LIMIT_REACHED: 'The order would exceed the maximum notional value of this session',
  OFFHOURS_EXPOSURE_LIMIT_REACHED: 'The order would exceed the off-hours exposure limit',
};

export function limitRefusal(cap: Cap): LimitRefusal {
  return { code: cap === 'LIMITED_ORDER_SIZE' ? 'MAX_LIMIT_REACHED' : cap, message: MESSAGES[cap] };
}

/** Why a limited asset's trading limits say so (a reason, not a refusal: it still trades, with smaller orders). */
export const ASSET_LIMITED_MESSAGE = 'Trade quantity for this asset is temporarily limited';

/** Headroom below one cent is no headroom: nothing useful can be attested with it. */
const MIN_NOTIONAL = new Decimal('0.01');

const appliesExposure = (status: TradingStatus): boolean => status.session === 'offhours';

/** Each notional cap with the code it fails with, in the order refusals are reported. */
function notionalCaps(status: TradingStatus, usage: UserUsage, exposure: Exposure | undefined, settings: LimitSettings) {
  const caps: { code: Cap; room: Decimal }[] = [];
  if (status.limited) caps.push({ code: 'LIMITED_ORDER_SIZE', room: settings.limitedMaxOrderNotional });
  caps.push({ code: 'MAX_LIMIT_REACHED', room: new Decimal(status.sessionLimit.maxActiveNotionalValue).minus(usage.outstandingNotional) });
  caps.push({ code: 'SESSION_LIMIT_REACHED', room: new Decimal(status.sessionLimit.maxSessionNotionalValue).minus(usage.sessionNotional) });
  if (appliesExposure(status) && exposure) {
    const global = settings.offhoursGlobalExposure.minus(exposure.global);
    const asset = settings.offhoursAssetExposure.minus(exposure.asset);
    caps.push({ code: 'OFFHOURS_EXPOSURE_LIMIT_REACHED', room: Decimal.min(global, asset) });
  }
  return caps;
}

/**
 * The first limit an order of `notional` would break, if any, short of the off-hours exposure caps: those are checked
 * as the order is stored, on the session's ledger (`storeAttestationsAndCommit`), after every other limit.
 */
export function refusedBy(status: TradingStatus, usage: UserUsage, settings: LimitSettings, notional: Decimal): LimitRefusal | undefined {
  const caps = notionalCaps(status, usage, undefined, settings);
  const limited = caps.find((cap) => cap.code === 'LIMITED_ORDER_SIZE');
  if (limited && notional.greaterThan(limited.room)) return limitRefusal('LIMITED_ORDER_SIZE');
  if (usage.outstandingCount >= status.sessionLimit.maxAttestationCount) return limitRefusal('MAX_ATTESTATIONS');
  const broken = caps.find((cap) => cap.code !== 'LIMITED_ORDER_SIZE' && notional.greaterThan(cap.room));
  return broken && limitRefusal(broken.code);
}

/** What is left for the user right now. */
export function headroom(status: TradingStatus, usage: UserUsage, exposure: Exposure | undefined, settings: LimitSettings): Headroom {
  const remainingAttestations = Math.max(0, status.sessionLimit.maxAttestationCount - usage.outstandingCount);
  const caps = notionalCaps(status, usage, exposure, settings);
  const tightest = caps.reduce((low, cap) => (cap.room.lessThan(low.room) ? cap : low));
  const maxNotional = tightest.room.lessThan(MIN_NOTIONAL) ? new Decimal(0) : tightest.room;
  let exhausted: LimitRefusal | undefined;
  if (remainingAttestations === 0) exhausted = limitRefusal('MAX_ATTESTATIONS');
  else if (maxNotional.isZero()) exhausted = limitRefusal(tightest.code);
  return { remainingAttestations, maxNotional, exhausted };
}
