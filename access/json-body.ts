/**
 * Reads a JSON request body with a size limit, for every transport that takes one (the API, the brokerage sandbox):
 * 413 past the limit, 415 for other media types, 400 if malformed, each as the transport's own error (`refuse`). A
 * client that goes away mid-body is `ClientAborted`, logged as such rather than as an outage.
 */
import type { Context } from 'koa';
import { ClientAborted } from '../domain/errors';

export type BodyRefusal = 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'MALFORMED_JSON';

/** The body as parsed JSON (undefined when empty); `refuse` builds the transport's error for a refusal. */
export async function readJsonBody(ctx: Context, limitBytes: number, refuse: (code: BodyRefusal, message: string, cause?: unknown) => Error): Promise<unknown> {
  const tooLarge = () => refuse('PAYLOAD_TOO_LARGE', `Request body exceeds ${limitBytes} bytes`);
  if (Number(ctx.get('content-length') || '0') > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  let refused: Error | undefined;
  try {
    for await (const chunk of ctx.req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limitBytes) {
        ctx.req.destroy();
        throw (refused = tooLarge());
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error === refused) throw error;
    // The only other way reading the request fails: the client reset or closed the connection before its end.
    throw new ClientAborted({ cause: error });
  }
  if (size === 0) return undefined;
  if (!ctx.is('application/json')) throw refuse('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw refuse('MALFORMED_JSON', 'Request body is not valid JSON', error);
  }
}
