/**
 * The console's actions, each one form: what it acts on (the audit's target), where the operator goes back to, and
 * what it does — through the admin route's own operation where there is one, through the Temporal client for the
 * workflow actions (cancel, terminate with a reason, a chain watcher's resume signal).
 */
import type { ApiServices } from '../api/services';
import { ApiError } from '../domain/errors';
import { pauseMarketOperation } from '../api/v1/status/pause-market';
import { resumeMarketOperation } from '../api/v1/status/resume-market';
import { pauseChainOperation, resumeChainOperation } from '../api/v1/status/pause-chain';
import { limitAssetOperation, pauseAssetOperation } from '../api/v1/status/start-asset-control';
import { resumeAssetOperation, unlimitAssetOperation } from '../api/v1/status/end-asset-control';
import { createScheduledEventOperation } from '../api/v1/status/create-scheduled-event';
import { deleteScheduledEventOperation } from '../api/v1/status/delete-scheduled-event';
import { updateSessionLimitOperation } from '../api/v1/limits/update-session-limit';
import { resumeRequestOperation } from '../api/v1/tokenization/resume-request';
import { rejectRequestOperation } from '../api/v1/tokenization/reject-request';
import { chainWatcherResumeSignal } from '../temporal/messages';
import { invokeOperation } from './operations';
import type { ConsoleContext, SignedIn } from './session';

export type Fields = Record<string, string>;

export interface ConsoleAction {
  target(fields: Fields): string;
  /** Where the operator lands afterwards. */
  back(fields: Fields): string;
  /** Whether the form must give a reason. */
  reasonRequired?: boolean;
  /** Does it; answers what the notice says. Throws an ApiError the notice shows when refused. */
  run(context: { services: ApiServices; ctx: ConsoleContext; session: SignedIn; fields: Fields }): Promise<string>;
}

const workflowPath = (fields: Fields) => `/console/workflows/${encodeURIComponent(fields.workflowId ?? '')}`;
const requestPath = (fields: Fields) => `/console/partner-requests/${encodeURIComponent(fields.request ?? '')}`;

function instant(text: string | undefined, name: string): number | undefined {
  if (!text) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(ms)) throw new ApiError('INVALID_REQUEST_BODY', `${name}: must be an ISO-8601 time or epoch ms`);
  return ms;
}

function temporalOf(services: ApiServices) {
  if (!services.temporal) throw new ApiError('TEMPORAL_UNAVAILABLE', 'This API process has no workflow service configured');
  return services.temporal;
}

/** The actions by name; a form names one of these own keys (console/routes.ts declares them as the only names). */
export const CONSOLE_ACTIONS = {
  'workflow-terminate': {
    target: (fields) => fields.workflowId ?? '',
    back: workflowPath,
    reasonRequired: true,
    async run({ services, fields }) {
      await temporalOf(services).workflow.getHandle(fields.workflowId!).terminate(fields.reason);
      return `Terminated ${fields.workflowId}`;
    },
  },
  'workflow-cancel': {
    target: (fields) => fields.workflowId ?? '',
    back: workflowPath,
    async run({ services, fields }) {
      await temporalOf(services).workflow.getHandle(fields.workflowId!).cancel();
      return `Cancellation requested for ${fields.workflowId}`;
    },
  },
  'watcher-resume': {
    target: (fields) => fields.workflowId ?? '',
    back: workflowPath,
    async run({ services, fields }) {
      const fromBlock = fields.fromBlock ? Number(fields.fromBlock) : undefined;
      if (fromBlock !== undefined && !Number.isSafeInteger(fromBlock)) throw new ApiError('INVALID_REQUEST_BODY', 'fromBlock: must be a block number');
      await temporalOf(services).workflow.getHandle(fields.workflowId!).signal(chainWatcherResumeSignal, { reanchor: fields.reanchor === '1', fromBlock });
      return `Resume sent to ${fields.workflowId}`;
    },
  },
  'partner-resume': {
    target: (fields) => fields.request ?? '',
    back: requestPath,
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, resumeRequestOperation, ctx, session, {
        params: { issuerRequestId: fields.request! },
        body: fields.clientId ? { clientId: fields.clientId } : {},
      });
      return fields.clientId ? `Assigned ${fields.clientId} and resumed ${fields.request}` : `Resumed ${fields.request}`;
    },
  },
  'partner-reject': {
    target: (fields) => fields.request ?? '',
    back: requestPath,
    reasonRequired: true,
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, rejectRequestOperation, ctx, session, { params: { issuerRequestId: fields.request! }, body: { reason: fields.reason } });
      return `Rejected ${fields.request}`;
    },
  },
  'market-pause': {
    target: () => 'market',
    back: () => '/console/controls',
    reasonRequired: true,
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, pauseMarketOperation, ctx, session, { body: { reason: fields.reason } });
      return 'The market is paused';
    },
  },
  'market-resume': {
    target: () => 'market',
    back: () => '/console/controls',
    async run({ services, ctx, session }) {
      await invokeOperation(services, resumeMarketOperation, ctx, session, {});
      return 'The market is resumed';
    },
  },
  'chain-pause': {
    target: (fields) => `chain ${fields.chainId ?? ''}`,
    back: () => '/console/controls',
    reasonRequired: true,
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, pauseChainOperation, ctx, session, { params: { chainId: fields.chainId ?? '' }, body: { reason: fields.reason } });
      return `${fields.chainId} is paused`;
    },
  },
  'chain-resume': {
    target: (fields) => `chain ${fields.chainId ?? ''}`,
    back: () => '/console/controls',
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, resumeChainOperation, ctx, session, { params: { chainId: fields.chainId ?? '' } });
      return `${fields.chainId} is resumed`;
    },
  },
  'asset-control': {
    target: (fields) => `asset ${fields.symbol ?? ''}`,
    back: () => '/console/controls',
    reasonRequired: true,
    async run({ services, ctx, session, fields }) {
      const operation = fields.code === 'limit' ? limitAssetOperation : pauseAssetOperation;
      const end = instant(fields.end, 'end');
      await invokeOperation(services, operation, ctx, session, { params: { symbol: fields.symbol ?? '' }, body: { reason: fields.reason, ...(end ? { end } : {}) } });
      return `${fields.symbol} ${fields.code === 'limit' ? 'limited' : 'paused'}`;
    },
  },
  'asset-end': {
    target: (fields) => `asset ${fields.symbol ?? ''}`,
    back: () => '/console/controls',
    async run({ services, ctx, session, fields }) {
      const operation = fields.code === 'limit' ? unlimitAssetOperation : resumeAssetOperation;
      await invokeOperation(services, operation, ctx, session, { params: { symbol: fields.symbol ?? '' } });
      return `${fields.symbol}: ${fields.code === 'limit' ? 'limit' : 'pause'} ended`;
    },
  },
  'event-create': {
    target: (fields) => `asset ${fields.symbol ?? ''}`,
    back: () => '/console/controls',
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, createScheduledEventOperation, ctx, session, {
        body: {
          symbol: fields.symbol,
          code: fields.code,
          reason: fields.eventReason,
          start: instant(fields.start, 'start'),
          end: instant(fields.end, 'end'),
          updateSharesMultiplier: fields.updateSharesMultiplier === '1',
        },
      });
      return `Event scheduled for ${fields.symbol}`;
    },
  },
  'event-delete': {
    target: (fields) => `event ${fields.eventId ?? ''}`,
    back: () => '/console/controls',
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, deleteScheduledEventOperation, ctx, session, { params: { eventId: fields.eventId ?? '' } });
      return `Event ${fields.eventId} deleted`;
    },
  },
  'session-limit': {
    target: (fields) => `limits ${fields.symbol ?? ''} ${fields.session ?? ''}`,
    back: () => '/console/controls',
    async run({ services, ctx, session, fields }) {
      await invokeOperation(services, updateSessionLimitOperation, ctx, session, {
        params: { symbol: fields.symbol ?? '', session: fields.session ?? '' },
        body: { tradable: fields.tradable === 'true', maxAttestationCount: fields.maxAttestationCount, maxActiveNotionalValue: fields.maxActiveNotionalValue },
      });
      return `Limits of ${fields.symbol} (${fields.session}) saved`;
    },
  },
} satisfies Record<string, ConsoleAction>;

export type ConsoleActionName = keyof typeof CONSOLE_ACTIONS;

export const CONSOLE_ACTION_NAMES = Object.keys(CONSOLE_ACTIONS) as ConsoleActionName[];
