/**
 * The answers of the workflows resource as zod schemas (named in the OpenAPI document). They describe what
 * inspection/workflows.ts makes of Temporal's data: names and times are typed, payloads the workflows carry
 * (heartbeat details, history event attributes) are opaque JSON.
 */
import { z } from 'zod';
import { component } from '../../contract/components';

const isoTime = z.iso.datetime();

const workflowSummaryShape = {
  workflowId: z.string(),
  runId: z.string().describe('The current (or latest) run.'),
  type: z.string().describe('The workflow type, e.g. `marketDataRetentionWorkflow`.'),
  status: z.string().describe("Temporal's execution status: `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `CONTINUED_AS_NEW`, `TIMED_OUT`, …"),
  taskQueue: z.string(),
  startTime: isoTime,
  closeTime: isoTime.nullable().describe('Null while running.'),
  historyLength: z.int().nonnegative().describe('Events in the history.'),
};

export const workflowSummarySchema = component('WorkflowSummary', z.object(workflowSummaryShape));
export type WorkflowSummary = z.infer<typeof workflowSummarySchema>;

export const workflowListSchema = component('WorkflowList', z.object({ workflows: z.array(workflowSummarySchema).describe('Newest first.') }));
export type WorkflowList = z.infer<typeof workflowListSchema>;

export const workflowDescriptionSchema = component(
  'WorkflowDescription',
  z.object({
    ...workflowSummaryShape,
    pendingActivities: z.array(
      z.object({
        activityId: z.string(),
        activityType: z.string(),
        state: z.string().describe('`SCHEDULED`, `STARTED`, `CANCEL_REQUESTED`, … (`UNSPECIFIED` when Temporal gives none).'),
        attempt: z.int().nonnegative().describe('The attempt running or next to run, from 1.'),
        maximumAttempts: z.int().nonnegative().describe('0: unlimited.'),
        scheduledTime: isoTime.nullable(),
        lastStartedTime: isoTime.nullable(),
        lastHeartbeatTime: isoTime.nullable(),
        heartbeatDetails: z
          .array(z.unknown())
          .describe('The last heartbeat payloads, decoded: JSON as sent, `null`, or `{encoding, base64}` for payloads that are not JSON.'),
        lastFailure: z
          .object({
            message: z.string(),
            type: z.string().nullable().describe("The application failure's type; null for other failures (timeouts, cancellation)."),
          })
          .nullable()
          .describe("The last attempt's failure; null before any failed."),
      }),
    ),
    pendingTimers: z.array(
      z.object({
        timerId: z.string(),
        startedEventId: z.int().nonnegative().describe('The history event that started it.'),
        firesAt: isoTime.nullable(),
      }),
    ),
    pendingWorkflowTask: z
      .object({ state: z.string().describe('`SCHEDULED` or `STARTED`.'), attempt: z.int().nonnegative() })
      .nullable()
      .describe('Null when no workflow task is pending.'),
    pendingChildren: z.array(z.object({ workflowId: z.string(), runId: z.string(), type: z.string() })),
  }),
);
export type WorkflowDescription = z.infer<typeof workflowDescriptionSchema>;

export const workflowHistorySchema = component(
  'WorkflowHistory',
  z.object({
    workflowId: z.string(),
    events: z
      .array(
        z.object({
          eventId: z.int().nonnegative(),
          time: isoTime.nullable(),
          type: z.string().describe('The event type, e.g. `WorkflowExecutionStarted`, `ActivityTaskCompleted`.'),
          details: z
            .record(z.string(), z.unknown())
            .describe(
              "The event's attributes as Temporal records them, made readable: payloads decoded to JSON (or `{encoding, base64}`), timestamps and durations as `{ms}`, bytes as base64, empty fields left out.",
            ),
        }),
      )
      .describe("The current run's history, oldest first."),
  }),
);
export type WorkflowHistory = z.infer<typeof workflowHistorySchema>;
