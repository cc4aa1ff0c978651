/**
 * Protocol plumbing for the in-memory Temporal service: the gRPC service definitions are loaded with
 * @grpc/proto-loader from the .proto files shipped in @temporalio/core-bridge (the exact API the pinned SDK
 * speaks), while messages are encoded and decoded with @temporalio/proto's protobufjs types so that handlers
 * work with typed objects. Also the small conversions between protobuf time/int64 values and milliseconds.
 */
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import Long from 'long';
import { temporal, google } from '@temporalio/proto';

export { temporal, google };
export type Payload = temporal.api.common.v1.IPayload;
export type Payloads = temporal.api.common.v1.IPayloads;
export type Failure = temporal.api.failure.v1.IFailure;
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type Timestamp = google.protobuf.ITimestamp;
export type Duration = google.protobuf.IDuration;
export const EventType = temporal.api.enums.v1.EventType;
export type EventType = temporal.api.enums.v1.EventType;
export const CommandType = temporal.api.enums.v1.CommandType;
export const WorkflowExecutionStatus = temporal.api.enums.v1.WorkflowExecutionStatus;
export type WorkflowExecutionStatus = temporal.api.enums.v1.WorkflowExecutionStatus;
export const TimeoutType = temporal.api.enums.v1.TimeoutType;
export const RetryState = temporal.api.enums.v1.RetryState;
export type RetryState = temporal.api.enums.v1.RetryState;

const protosRoot = path.join(
  path.dirname(require.resolve('@temporalio/core-bridge/package.json')),
  'sdk-core/crates/protos/protos',
);

interface MessageCodec {
  encode(message: object): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
}

function lookupCodec(packageName: string, shortName: string): MessageCodec {
  for (const fullName of [`${packageName}.${shortName}`, `google.protobuf.${shortName}`]) {
    let target: unknown = { temporal, google };
    for (const part of fullName.split('.')) target = (target as Record<string, unknown> | undefined)?.[part];
    if (target && typeof (target as MessageCodec).encode === 'function') return target as MessageCodec;
  }
  throw new Error(`No protobuf type ${packageName}.${shortName} in @temporalio/proto`);
}

/**
 * Loads one gRPC service from the bundled .proto files and swaps proto-loader's object conversion for
 * @temporalio/proto's codecs, so requests arrive as typed protobufjs messages.
 */
function loadService(protoFile: string, serviceName: string): grpc.ServiceDefinition {
  const packageDefinition = protoLoader.loadSync([protoFile], {
    includeDirs: [path.join(protosRoot, 'api_upstream'), path.join(protosRoot, 'testsrv_upstream')],
  });
  const loaded = packageDefinition[serviceName] as protoLoader.ServiceDefinition | undefined;
  if (!loaded) throw new Error(`Service ${serviceName} not found in ${protoFile}`);
  const packageName = serviceName.slice(0, serviceName.lastIndexOf('.'));
  const service: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const [name, method] of Object.entries(loaded)) {
    const requestCodec = lookupCodec(packageName, (method.requestType.type as { name?: string }).name ?? '');
    const responseCodec = lookupCodec(packageName, (method.responseType.type as { name?: string }).name ?? '');
    service[name] = {
      path: method.path,
      requestStream: method.requestStream,
      responseStream: method.responseStream,
      originalName: method.originalName,
      requestSerialize: (value: object) => Buffer.from(requestCodec.encode(value).finish()),
      requestDeserialize: (bytes: Buffer) => requestCodec.decode(bytes),
      responseSerialize: (value: object) => Buffer.from(responseCodec.encode(value).finish()),
      responseDeserialize: (bytes: Buffer) => responseCodec.decode(bytes),
    };
  }
  return service;
}

let cachedDefinitions: { workflowService: grpc.ServiceDefinition; testService: grpc.ServiceDefinition } | undefined;

/** The WorkflowService and TestService definitions, loaded once per process. */
export function serviceDefinitions(): { workflowService: grpc.ServiceDefinition; testService: grpc.ServiceDefinition } {
  cachedDefinitions ??= {
    workflowService: loadService('temporal/api/workflowservice/v1/service.proto', 'temporal.api.workflowservice.v1.WorkflowService'),
    testService: loadService('temporal/api/testservice/v1/service.proto', 'temporal.api.testservice.v1.TestService'),
  };
  return cachedDefinitions;
}

/** A protobuf int64 from a JS number (event ids, counts, seconds). */
export function int64(value: number): Long {
  return Long.fromNumber(value);
}

/** A protobuf int64 (Long, number or absent) as a JS number. */
export function toNumber(value: Long | number | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  return value.toNumber();
}

/** Milliseconds in a protobuf Duration; 0 when absent (Temporal's "unset / infinite"). */
export function durationToMs(duration: Duration | null | undefined): number {
  if (!duration) return 0;
  return toNumber(duration.seconds) * 1000 + Math.floor((duration.nanos ?? 0) / 1_000_000);
}

export function msToDuration(ms: number): Duration {
  const whole = Math.floor(ms);
  return { seconds: int64(Math.floor(whole / 1000)), nanos: (whole % 1000) * 1_000_000 };
}

export function timestampToMs(timestamp: Timestamp | null | undefined): number {
  return durationToMs(timestamp);
}

export function msToTimestamp(ms: number): Timestamp {
  return msToDuration(ms);
}
