/**
 * How a run is stored: history events as protobuf bytes, memo and search attributes likewise, and the run's
 * record (what it keeps beside history) as JSON whose payloads, failures and buffered events are base64
 * protobuf.
 */
import { type PendingEvent } from '../history-events';
import { type Failure, type HistoryEvent, type Payloads, temporal } from '../proto';
import { type ActivityRecord } from '../run-activities';
import { type RunRecord } from '../workflow-state';

const HistoryEventCodec = temporal.api.history.v1.HistoryEvent;
const PayloadsCodec = temporal.api.common.v1.Payloads;
const FailureCodec = temporal.api.failure.v1.Failure;

export function encodeEvent(event: HistoryEvent): Buffer {
  return Buffer.from(HistoryEventCodec.encode(event).finish());
}

export function decodeEvent(bytes: Uint8Array): HistoryEvent {
  return HistoryEventCodec.decode(bytes);
}

export function encodeMemo(memo: temporal.api.common.v1.IMemo): string {
  return Buffer.from(temporal.api.common.v1.Memo.encode(memo).finish()).toString('base64');
}

export function encodeSearchAttributes(searchAttributes: temporal.api.common.v1.ISearchAttributes): string {
  return Buffer.from(temporal.api.common.v1.SearchAttributes.encode(searchAttributes).finish()).toString('base64');
}

type StoredActivity = Omit<ActivityRecord, 'heartbeatDetails' | 'lastFailure'> & { heartbeatDetails?: string; lastFailure?: string };

interface StoredRecord {
  workflowTask?: RunRecord['workflowTask'];
  activities: StoredActivity[];
  buffered: { time: number; events: string[]; triggersTask: boolean }[];
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const bytes = (text: string) => Buffer.from(text, 'base64');

function encodePayloads(payloads: Payloads | null | undefined): string | undefined {
  return payloads ? base64(PayloadsCodec.encode(payloads).finish()) : undefined;
}

function encodeFailure(failure: Failure | null | undefined): string | undefined {
  return failure ? base64(FailureCodec.encode(failure).finish()) : undefined;
}

function encodePendingEvent(event: PendingEvent): string {
  return base64(HistoryEventCodec.encode({ ...event.attributes, eventType: event.eventType }).finish());
}

function decodePendingEvent(text: string): PendingEvent {
  const event = HistoryEventCodec.decode(bytes(text));
  return { eventType: event.eventType, attributes: event };
}

/** The run's record as stored (JSON-ready). */
export function encodeRecord(record: RunRecord): StoredRecord {
  return {
    workflowTask: record.workflowTask,
    activities: record.activities.map((activity) => ({
      ...activity,
      heartbeatDetails: encodePayloads(activity.heartbeatDetails),
      lastFailure: encodeFailure(activity.lastFailure),
    })),
    buffered: record.buffered.map((group) => ({ time: group.time, triggersTask: group.triggersTask, events: group.events.map(encodePendingEvent) })),
  };
}

export function decodeRecord(stored: StoredRecord | null | undefined): RunRecord | undefined {
  if (!stored) return undefined;
  return {
    workflowTask: stored.workflowTask ?? undefined,
    activities: (stored.activities ?? []).map((activity) => ({
      ...activity,
      heartbeatDetails: activity.heartbeatDetails ? PayloadsCodec.decode(bytes(activity.heartbeatDetails)) : undefined,
      lastFailure: activity.lastFailure ? FailureCodec.decode(bytes(activity.lastFailure)) : undefined,
    })),
    buffered: (stored.buffered ?? []).map((group) => ({ time: group.time, triggersTask: group.triggersTask, events: group.events.map(decodePendingEvent) })),
  };
}
