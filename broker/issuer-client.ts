/**
 * The sandbox's calls to the issuer's partner API (`x-api-key` the issuer gave the broker), with a timeout.
 * Each answer is classified once: accepted (2xx), refused (4xx, final: the issuer's `{code, message}`), or
 * unavailable (5xx, a network failure, a timeout, an unreadable answer — the caller retries the same bytes).
 */

export type IssuerAnswer =
  | { kind: 'accepted'; status: number; body: Record<string, unknown> }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unavailable'; error: string };

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
}

export function createIssuerClient(options: IssuerClientOptions): IssuerClient {
  const base = options.issuerApiUrl.replace(/\/+$/, '');

  async function post(path: string, body: string, idempotencyKey: string): Promise<IssuerAnswer> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': options.partnerApiKey, 'idempotency-key': idempotencyKey },
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
  };
}
