/**
 * Building history events: every event the service writes gets its id, time and a task id that grows
 * across all runs, as on the Temporal server.
 */
import { type EventType, type HistoryEvent, int64, msToTimestamp, toNumber } from './proto';

let nextTaskId = 1;

/** An event not yet written: its type and attributes; id and time are given when it enters history. */
export interface PendingEvent {
  eventType: EventType;
  attributes: HistoryEvent;
}

/** A history event of `eventType` with the given attributes, numbered `eventId`, written at `time`. */
export function newEvent(eventId: number, eventType: EventType, attributes: HistoryEvent, time: number): HistoryEvent {
  return { eventId: int64(eventId), eventTime: msToTimestamp(time), eventType, taskId: int64(nextTaskId++), ...attributes };
}

/** Keeps task ids growing past those of reloaded events. */
export function taskIdsAbove(event: HistoryEvent): void {
  nextTaskId = Math.max(nextTaskId, toNumber(event.taskId) + 1);
}

/** An event's id as a number. */
export function eventNumber(event: HistoryEvent): number {
  return toNumber(event.eventId);
}
