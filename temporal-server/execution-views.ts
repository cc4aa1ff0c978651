/**
 * Read-only views of workflow runs: DescribeWorkflowExecution (config, pending activities, children and
 * workflow task) and the visibility answers of ListWorkflowExecutions and CountWorkflowExecutions.
 */
import { int64, msToDuration, msToTimestamp, temporal } from './proto';
import { matchesVisibilityQuery, parseVisibilityQuery } from './visibility';
import { type WorkflowRun } from './workflow-state';

const Enums = temporal.api.enums.v1;

/** The WorkflowExecutionInfo of a run, as describe and list show it. */
export function executionInfo(namespace: string, run: WorkflowRun): temporal.api.workflow.v1.IWorkflowExecutionInfo {
  return {
    execution: run.execution,
    type: { name: run.init.workflowType },
    startTime: msToTimestamp(run.startTime),
    closeTime: run.closeTime !== undefined ? msToTimestamp(run.closeTime) : null,
    status: run.status,
    historyLength: int64(run.history.length),
    executionTime: msToTimestamp(run.startTime + run.init.firstWorkflowTaskBackoffMs),
    memo: run.memo,
    searchAttributes: run.searchAttributes,
    taskQueue: run.init.taskQueue,
    parentNamespaceId: run.init.parent ? namespace : '',
    parentExecution: run.init.parent?.run.execution ?? null,
    firstRunId: run.init.firstExecutionRunId,
    stateTransitionCount: int64(run.history.length),
  };
}

export function describeExecution(namespace: string, run: WorkflowRun): temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse {
  return {
    executionConfig: {
      taskQueue: { name: run.init.taskQueue, kind: Enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      workflowExecutionTimeout: msToDuration(run.init.executionTimeoutMs),
      workflowRunTimeout: msToDuration(run.init.runTimeoutMs),
      defaultWorkflowTaskTimeout: msToDuration(run.init.taskTimeoutMs),
    },
    workflowExecutionInfo: executionInfo(namespace, run),
    pendingActivities: run.activities.pendingInfos(),
    pendingChildren: [...run.children.values()]
      .filter((child) => child.runId)
      .map((child) => ({
        workflowId: child.workflowId,
        runId: child.runId,
        workflowTypeName: child.workflowType,
        initiatedId: int64(child.initiatedEventId),
        parentClosePolicy: child.parentClosePolicy,
      })),
    pendingWorkflowTask: run.isRunning ? run.workflowTasks.pendingInfo() : null,
  };
}

/** Runs matching a visibility query, newest first (`runs` oldest first). */
function matchingRuns(runs: Iterable<WorkflowRun>, query: string): WorkflowRun[] {
  const filter = parseVisibilityQuery(query);
  const result: WorkflowRun[] = [];
  for (const run of runs) if (matchesVisibilityQuery(filter, run)) result.push(run);
  return result.reverse();
}

/** One page of the runs matching the request's query; the page token is the offset of the next page. */
export function listExecutions(
  namespace: string,
  runs: Iterable<WorkflowRun>,
  request: temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest,
): temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse {
  const matches = matchingRuns(runs, request.query);
  const offset = request.nextPageToken?.length ? Number(Buffer.from(request.nextPageToken).toString('utf8')) : 0;
  const pageSize = request.pageSize > 0 ? request.pageSize : 1000;
  const page = matches.slice(offset, offset + pageSize);
  const next = offset + page.length;
  return {
    executions: page.map((run) => executionInfo(namespace, run)),
    nextPageToken: next < matches.length ? Buffer.from(String(next)) : undefined,
  };
}

export function countExecutions(
  runs: Iterable<WorkflowRun>,
  request: temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest,
): temporal.api.workflowservice.v1.ICountWorkflowExecutionsResponse {
  return { count: int64(matchingRuns(runs, request.query).length) };
}
