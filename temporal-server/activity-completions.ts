/**
 * What workers report about activity attempts: heartbeats, completions, failures and cancellations, each
 * addressed by task token or by workflow id + activity id. Finds the started attempt the report is for
 * (NOT_FOUND when it is no longer current) and hands the report to the run's activities.
 */
import { type RunRegistry } from './run-registry';
import { notFound } from './errors';
import { type Failure, type temporal } from './proto';
import { type PendingActivity } from './run-activities';
import { decodeTaskToken } from './task-tokens';
import { type WorkflowRun } from './workflow-state';

type ActivityAddress = { workflowId?: string | null; runId?: string | null; activityId?: string | null };
type Api = typeof temporal.api.workflowservice.v1;
type Request<Name extends keyof Api> = Api[Name] extends { prototype: infer R } ? R : never;

export class ActivityCompletions {
  constructor(private readonly registry: Pick<RunRegistry, 'findRun' | 'runById'>) {}

  private byToken(taskToken: Uint8Array): { run: WorkflowRun; activity: PendingActivity } {
    const token = decodeTaskToken(taskToken);
    const run = token?.kind === 'activity' ? this.registry.runById(token.runId) : undefined;
    const activity = token && run?.isRunning ? run.activities.forToken(token) : undefined;
    if (!run || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  private byId(request: ActivityAddress): { run: WorkflowRun; activity: PendingActivity } {
    const run = this.registry.findRun({ workflowId: request.workflowId, runId: request.runId });
    const scheduledEventId = run.activities.ids.get(request.activityId ?? '');
    const activity = scheduledEventId === undefined ? undefined : run.activities.pending.get(scheduledEventId);
    if (!run.isRunning || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  heartbeat(request: Request<'RecordActivityTaskHeartbeatRequest'>): { cancelRequested: boolean } {
    const { run, activity } = this.byToken(request.taskToken);
    return { cancelRequested: run.activities.heartbeat(activity, request.details) };
  }

  heartbeatById(request: Request<'RecordActivityTaskHeartbeatByIdRequest'>): { cancelRequested: boolean } {
    const { run, activity } = this.byId(request);
    return { cancelRequested: run.activities.heartbeat(activity, request.details) };
  }

  completed(request: Request<'RespondActivityTaskCompletedRequest'>): void {
    const { run, activity } = this.byToken(request.taskToken);
    run.activities.complete(activity, request.result, request.identity);
  }

  completedById(request: Request<'RespondActivityTaskCompletedByIdRequest'>): void {
    const { run, activity } = this.byId(request);
    run.activities.complete(activity, request.result, request.identity);
  }

  failed(request: Request<'RespondActivityTaskFailedRequest'>): void {
    const { run, activity } = this.byToken(request.taskToken);
    run.activities.fail(activity, failureOf(request.failure), request.identity, request.lastHeartbeatDetails);
  }

  failedById(request: Request<'RespondActivityTaskFailedByIdRequest'>): void {
    const { run, activity } = this.byId(request);
    run.activities.fail(activity, failureOf(request.failure), request.identity, request.lastHeartbeatDetails);
  }

  canceled(request: Request<'RespondActivityTaskCanceledRequest'>): void {
    const { run, activity } = this.byToken(request.taskToken);
    run.activities.reportCanceled(activity, request.details, request.identity);
  }

  canceledById(request: Request<'RespondActivityTaskCanceledByIdRequest'>): void {
    const { run, activity } = this.byId(request);
    run.activities.reportCanceled(activity, request.details, request.identity);
  }
}

function failureOf(failure: Failure | null | undefined): Failure {
  return failure ?? { message: 'activity failed' };
}

