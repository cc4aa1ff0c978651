/**
 * The sandbox's calls to the issuer's partner API (`x-api-key` the issuer gave the broker), with a timeout.
 * Each answer is classified once: accepted (2xx), refused (4xx, final: the issuer's `{code, message}`), or
 * unavailable (5xx, a network failure, a timeout, an unreadable answer — the caller retries the same bytes).
 */
import { z } from 'zod';
import { identifierSchema } from './fields';

export type IssuerAnswer =
  | { kind: 'accepted'; status: number; body: Record<string, unknown> }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unavailable'; error: string };

/** What the issuer's connect endpoint answered, as the connect route acts on it. */
export type ConnectAnswer =
  | { kind: 'connected'; clientId: string }
  /** 404: the issuer has no client with this email. */
  | { kind: 'unknown_client'; message: string }
  /** 409: the issuer's client is already linked to a brokerage account. */
  | { kind: 'already_linked'; message: string }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unavailable'; error: string };

export interface ConnectAccount {
  email: string;
  /** The participant's account number at the broker (e.g. `SBX-000001`), not the sandbox account id. */
  accountNumber: string;
}

const connectAnswerBody = z.object({ client_id: identifierSchema });

export interface IssuerClientOptions {
  issuerApiUrl: string;
  partnerApiKey: string;
  timeoutMs: number;
}

export interface IssuerClient {
  /** POST /v1/tokenization/inkind/issuance with `Idempotency-Key: <tokenization_request_id>`. */
  submitIssuance(body: string, tokenizationRequestId: string): Promise<IssuerAnswer>;
  /** POST /v1/tokenization/inkind/issuance/confirm with `Idempotency-Key: <tokenization_request_id>-confirm`. */
  confirmIssuance(body: string, tokenizationRequestId: string): Promise<IssuerAnswer>;
  /** POST /v1/tokenization/accounts/connect `{email, account}`: links the issuer's client to the brokerage account. */
  connectAccount(account: ConnectAccount): Promise<ConnectAnswer>;
}

/** Narrows the generic classification to what connect means: a client id, or why there is none. */
function connectAnswerOf(answer: IssuerAnswer): ConnectAnswer {
  if (answer.kind === 'unavailable') return answer;
  if (answer.kind === 'refused') {
    if (answer.status === 404) return { kind: 'unknown_client', message: answer.message };
    if (answer.status === 409) return { kind: 'already_linked', message: answer.message };
    return answer;
  }
  const parsed = connectAnswerBody.safeParse(answer.body);
  // A 2xx without a client id is as unusable as no answer: the caller stores nothing and may try again.
  if (!parsed.success) return { kind: 'unavailable', error: `POST /v1/tokenization/accounts/connect answered ${answer.status} without a client_id` };
  return { kind: 'connected', clientId: parsed.data.client_id };
}

export function createIssuerClient(options: IssuerClientOptions): IssuerClient {
  const base = options.issuerApiUrl.replace(/\/+$/, '');

  async function post(path: string, body: string, idempotencyKey?: string): Promise<IssuerAnswer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': options.partnerApiKey };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { kind: 'unavailable', error: `POST ${path} failed: ${(error as Error).message}` };
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    if (response.status >= 200 && response.status < 300) {
      if (!object) return { kind: 'unavailable', error: `POST ${path} answered ${response.status} without a JSON object` };
      return { kind: 'accepted', status: response.status, body: object };
    }
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      return {
        kind: 'refused',
        status: response.status,
        code: typeof object?.code === 'string' ? object.code : `HTTP_${response.status}`,
        message: typeof object?.message === 'string' ? object.message : text.slice(0, 500),
      };
    }
    return { kind: 'unavailable', error: `POST ${path} answered ${response.status}: ${text.slice(0, 200)}` };
  }

  return {
    submitIssuance: (body, id) => post('/v1/tokenization/inkind/issuance', body, id),
    confirmIssuance: (body, id) => post('/v1/tokenization/inkind/issuance/confirm', body, `${id}-confirm`),
    // Connect carries no Idempotency-Key: the issuer's answer to a repeat is 409, which the route reads as such.
    connectAccount: async (account) =>
      connectAnswerOf(await post('/v1/tokenization/accounts/connect', JSON.stringify({ email: account.email, account: account.accountNumber }))),
  };
}
