/**
 * Records real answers as examples for the OpenAPI document. With `API_EXAMPLES_DIR` set (by
 * `npm run openapi:examples`), the apps the tests build store the first answer of each operation and status,
 * and the first message of each error code, one file each (concurrent test workers never overwrite one another).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckedAnswer } from '../api/contract/answer-check';

function isErrorBody(body: unknown): body is { code: string } {
  return typeof body === 'object' && body !== null && 'code' in body && 'documentation' in body;
}

export function answerExampleRecorder(directory = process.env.API_EXAMPLES_DIR): ((answer: CheckedAnswer) => void) | undefined {
  if (!directory) return undefined;
  return ({ operationId, status, body }) => {
    if (body === undefined || typeof body !== 'object') return;
    // Errors by code, also the router's own (no operation); answers by operation and status.
    if (!isErrorBody(body) && !operationId) return;
    const name = isErrorBody(body) ? `error.${body.code}` : `answer.${operationId}.${status}`;
    try {
      writeFileSync(path.join(directory, `${name}.json`), JSON.stringify(body), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  };
}
