/** The workflows resource: operators inspecting workflow executions and their histories (admin). */
import type { Resource } from '../../contract/operation';
import { describeWorkflowOperation } from './describe-workflow';
import { listWorkflowsOperation } from './list-workflows';
import { workflowHistoryOperation } from './workflow-history';

export const workflowsResource: Resource = {
  tag: 'Workflows',
  description: 'Operators inspecting workflow executions, their pending work and their histories (admin).',
  operations: [listWorkflowsOperation, describeWorkflowOperation, workflowHistoryOperation],
};
