/**
 * Task tokens of the in-memory service: the opaque bytes handed to a worker with a workflow task, an
 * activity attempt or a query, and given back when it responds. They are JSON naming the run and the task.
 */

/** The token identifying one workflow task, activity attempt or query handed to a worker. */
export interface TaskToken {
  kind: 'workflow' | 'activity' | 'query';
  workflowId: string;
  runId: string;
  /** Scheduled event id (workflow task, activity) or query id. */
  id: number;
  attempt: number;
}

export function encodeTaskToken(token: TaskToken): Buffer {
  return Buffer.from(JSON.stringify(token));
}

export function decodeTaskToken(bytes: Uint8Array | null | undefined): TaskToken | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(bytes ?? []).toString('utf8')) as TaskToken;
    return typeof parsed.workflowId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
