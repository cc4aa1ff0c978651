/** The workflows resource: operators inspecting workflow executions and their histories (admin). */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { describeWorkflowRoute } from './describe-workflow';
import { listWorkflowsRoute } from './list-workflows';
import { workflowHistoryRoute } from './workflow-history';

export function workflowsRouter(services: ApiServices): Router<ApiState> {
  const admin = requireScope('admin');
  return new Router<ApiState>({ prefix: '/workflows' })
    .get('/', admin, listWorkflowsRoute(services))
    .get('/:workflowId', admin, describeWorkflowRoute(services))
    .get('/:workflowId/history', admin, workflowHistoryRoute(services));
}
