/**
 * Examples for the OpenAPI document, taken from real answers: `npm run openapi:examples` runs the API suites with
 * the answer check recording the first answer of each operation and status, and the first message of each error
 * code, into examples.json. The contract test checks that every example still matches its schema.
 */
import type { ErrorCode } from '../../domain/error-codes';
import recorded from './examples.json';

export interface ApiExamples {
  /** Answer bodies by operation id and HTTP status. */
  answers: Record<string, Record<string, unknown>>;
  /** One real message per error code. */
  errors: Partial<Record<ErrorCode, { message: string }>>;
}

export const API_EXAMPLES: ApiExamples = recorded as ApiExamples;
