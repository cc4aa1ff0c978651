/**
 * The visibility filter of the in-memory service: a small parser for Temporal's list/count query language
 * (comparisons joined by AND / OR with parentheses; =, !=, <, <=, >, >=, IN, BETWEEN … AND …, STARTS_WITH;
 * a trailing ORDER BY is accepted and ignored) and a matcher over workflow runs. Supported fields:
 * WorkflowId, RunId, WorkflowType, TaskQueue, ExecutionStatus, StartTime, CloseTime, ExecutionTime, and
 * custom search attributes holding JSON scalars.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { WorkflowExecutionStatus } from './proto';
import { type WorkflowRun } from './workflow-state';

type Value = string | number;

export type VisibilityFilter =
  | { kind: 'all' }
  | { kind: 'and' | 'or'; left: VisibilityFilter; right: VisibilityFilter }
  | { kind: 'compare'; field: string; op: '=' | '!=' | '<' | '<=' | '>' | '>=' | 'starts_with'; value: Value }
  | { kind: 'in'; field: string; values: Value[]; negated: boolean }
  | { kind: 'between'; field: string; low: Value; high: Value };

/** Raised for a query the parser cannot read; carries INVALID_ARGUMENT for the gRPC layer. */
export class VisibilityQueryError extends Error {
  readonly code = GrpcStatus.INVALID_ARGUMENT;
}

const statusNames: Record<string, WorkflowExecutionStatus> = {
  running: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
  completed: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
  failed: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
  canceled: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
  terminated: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
  continuedasnew: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
  timedout: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
};

const timeFields = new Set(['StartTime', 'CloseTime', 'ExecutionTime']);

function tokenize(query: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s*(?:('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(!=|<=|>=|=|<|>|\(|\)|,)|([A-Za-z_][\w.-]*|-?\d+(?:\.\d+)?))/y;
  let index = 0;
  while (index < query.length) {
    if (/^\s*$/.test(query.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(query);
    if (!match) throw new VisibilityQueryError(`invalid query near "${query.slice(index, index + 20)}"`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? '');
    index = pattern.lastIndex;
  }
  return tokens;
}

/** Parses a visibility query; an empty query matches everything. */
export function parseVisibilityQuery(query: string): VisibilityFilter {
  const tokens = tokenize(query);
  const orderBy = tokens.findIndex((token, i) => token.toUpperCase() === 'ORDER' && tokens[i + 1]?.toUpperCase() === 'BY');
  if (orderBy >= 0) tokens.length = orderBy;
  if (tokens.length === 0) return { kind: 'all' };
  let position = 0;
  const peek = () => tokens[position];
  const next = () => {
    const token = tokens[position++];
    if (token === undefined) throw new VisibilityQueryError('unexpected end of query');
    return token;
  };
  const keyword = (word: string) => peek()?.toUpperCase() === word;
  const literal = (): Value => {
    const token = next();
    if (token.startsWith("'") || token.startsWith('"')) return token.slice(1, -1).replace(/\\(.)/g, '$1');
    const number = Number(token);
    if (Number.isNaN(number)) throw new VisibilityQueryError(`expected a value, got "${token}"`);
    return number;
  };
  const expression = (): VisibilityFilter => {
    let left = conjunction();
    while (keyword('OR')) {
      next();
      left = { kind: 'or', left, right: conjunction() };
    }
    return left;
  };
  const conjunction = (): VisibilityFilter => {
    let left = factor();
    while (keyword('AND')) {
      next();
      left = { kind: 'and', left, right: factor() };
    }
    return left;
  };
  const factor = (): VisibilityFilter => {
    if (peek() === '(') {
      next();
      const inner = expression();
      if (next() !== ')') throw new VisibilityQueryError('missing ")"');
      return inner;
    }
    const field = next().replace(/^`|`$/g, '');
    if (keyword('NOT') || keyword('IN')) {
      const negated = keyword('NOT');
      if (negated) next();
      if (next().toUpperCase() !== 'IN' || next() !== '(') throw new VisibilityQueryError('expected IN (...)');
      const values: Value[] = [literal()];
      while (peek() === ',') {
        next();
        values.push(literal());
      }
      if (next() !== ')') throw new VisibilityQueryError('missing ")"');
      return { kind: 'in', field, values, negated };
    }
    if (keyword('BETWEEN')) {
      next();
      const low = literal();
      if (next().toUpperCase() !== 'AND') throw new VisibilityQueryError('expected AND in BETWEEN');
      return { kind: 'between', field, low, high: literal() };
    }
    if (keyword('STARTS_WITH')) {
      next();
      return { kind: 'compare', field, op: 'starts_with', value: literal() };
    }
    const op = next();
    if (!['=', '!=', '<', '<=', '>', '>='].includes(op)) throw new VisibilityQueryError(`unsupported operator "${op}"`);
    return { kind: 'compare', field, op: op as '=', value: literal() };
  };
  const filter = expression();
  if (position !== tokens.length) throw new VisibilityQueryError(`unexpected "${peek() ?? ''}"`);
  return filter;
}

function fieldValue(run: WorkflowRun, field: string): Value | undefined {
  switch (field) {
    case 'WorkflowId':
      return run.workflowId;
    case 'RunId':
      return run.runId;
    case 'WorkflowType':
      return run.init.workflowType;
    case 'TaskQueue':
      return run.init.taskQueue;
    case 'ExecutionStatus':
      return run.status;
    case 'StartTime':
      return run.startTime;
    case 'ExecutionTime':
      return run.startTime + run.init.firstWorkflowTaskBackoffMs;
    case 'CloseTime':
      return run.closeTime;
    default: {
      const payload = run.searchAttributes.indexedFields?.[field];
      if (!payload?.data) return undefined;
      try {
        const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
        const scalar = Array.isArray(value) ? value[0] : value;
        return typeof scalar === 'string' || typeof scalar === 'number' ? scalar : undefined;
      } catch {
        return undefined;
      }
    }
  }
}

/** Brings a literal to the field's representation: statuses to enum numbers, times to epoch ms. */
function normalize(field: string, value: Value): Value {
  if (field === 'ExecutionStatus' && typeof value === 'string') {
    const status = statusNames[value.toLowerCase().replace(/_/g, '')];
    if (status === undefined) throw new VisibilityQueryError(`unknown ExecutionStatus "${value}"`);
    return status;
  }
  if (timeFields.has(field)) {
    const ms = typeof value === 'number' ? value : Date.parse(value);
    if (Number.isNaN(ms)) throw new VisibilityQueryError(`invalid time "${value}" for ${field}`);
    return ms;
  }
  return value;
}

export function matchesVisibilityQuery(filter: VisibilityFilter, run: WorkflowRun): boolean {
  switch (filter.kind) {
    case 'all':
      return true;
    case 'and':
      return matchesVisibilityQuery(filter.left, run) && matchesVisibilityQuery(filter.right, run);
    case 'or':
      return matchesVisibilityQuery(filter.left, run) || matchesVisibilityQuery(filter.right, run);
    case 'in': {
      const actual = fieldValue(run, filter.field);
      const found = actual !== undefined && filter.values.some((value) => normalize(filter.field, value) === actual);
      return filter.negated ? !found : found;
    }
    case 'between': {
      const actual = fieldValue(run, filter.field);
      return actual !== undefined && actual >= normalize(filter.field, filter.low) && actual <= normalize(filter.field, filter.high);
    }
    case 'compare': {
      const actual = fieldValue(run, filter.field);
      const expected = normalize(filter.field, filter.value);
      if (actual === undefined) return filter.op === '!=';
      switch (filter.op) {
        case '=':
          return actual === expected;
        case '!=':
          return actual !== expected;
        case '<':
          return actual < expected;
        case '<=':
          return actual <= expected;
        case '>':
          return actual > expected;
        case '>=':
          return actual >= expected;
        case 'starts_with':
          return String(actual).startsWith(String(expected));
      }
    }
  }
}
