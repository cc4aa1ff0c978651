/** The status resource: market, asset and chain statuses, and the operator controls that change them. */
import type { Resource } from '../../contract/operation';
import { assetStatusesOperation } from './asset-statuses';
import { chainStatusesOperation } from './chain-statuses';
import { createScheduledEventOperation } from './create-scheduled-event';
import { deleteScheduledEventOperation } from './delete-scheduled-event';
import { resumeAssetOperation, unlimitAssetOperation } from './end-asset-control';
import { marketStatusOperation } from './market-status';
import { pauseChainOperation, resumeChainOperation } from './pause-chain';
import { pauseMarketOperation } from './pause-market';
import { resumeMarketOperation } from './resume-market';
import { limitAssetOperation, pauseAssetOperation } from './start-asset-control';

export const statusResource: Resource = {
  tag: 'Status',
  description: 'Market, asset and chain statuses, and the operator controls (admin) that pause, limit and schedule them.',
  operations: [
    marketStatusOperation,
    assetStatusesOperation,
    pauseMarketOperation,
    resumeMarketOperation,
    createScheduledEventOperation,
    deleteScheduledEventOperation,
    pauseAssetOperation,
    resumeAssetOperation,
    limitAssetOperation,
    unlimitAssetOperation,
    chainStatusesOperation,
    pauseChainOperation,
    resumeChainOperation,
  ],
};
