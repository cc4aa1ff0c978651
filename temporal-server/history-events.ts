/**
 * Building history events: every event the service writes gets its id, time and a task id that grows
 * across all runs, as on the Temporal server.
 */
import { type EventType, type HistoryEvent, int64, msToTimestamp, toNumber } from './proto';

let nextTaskId = 1;

/** A history event of `eventType` with the given attributes, numbered `eventId`, written at `time`. */
export function newEvent(eventId: number, eventType: EventType, attributes: HistoryEvent, time: number): HistoryEvent {
  return { eventId: int64(eventId), eventTime: msToTimestamp(time), eventType, taskId: int64(nextTaskId++), ...attributes };
}

/** An event's id as a number. */
export function eventNumber(event: HistoryEvent): number {
  return toNumber(event.eventId);
}
