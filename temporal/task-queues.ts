/** Task-queue names shared by the worker and everything that starts workflows. */

/** The issuer platform's main task queue: its workflows and activities. */
export const ISSUER_TASK_QUEUE = 'issuer';

export const taskQueues = {
  issuer: ISSUER_TASK_QUEUE,
} as const;

export type TaskQueueName = (typeof taskQueues)[keyof typeof taskQueues];
