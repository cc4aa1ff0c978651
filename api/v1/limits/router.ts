/** The limits resource: static session limits and each user's real-time trading limits. */
import type { Resource } from '../../contract/operation';
import { sessionLimitsOperation } from './session-limits';
import { tradingLimitsOperation } from './trading-limits';
import { updateSessionLimitOperation } from './update-session-limit';

export const limitsResource: Resource = {
  tag: 'Limits',
  description: "Static per-session limits of every asset, each user's real-time headroom, and setting the limits (admin).",
  operations: [sessionLimitsOperation, tradingLimitsOperation, updateSessionLimitOperation],
};
