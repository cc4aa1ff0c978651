/**
 * Reads a JSON request body with a size limit: 413 past it, 415 for other media types, 400 if malformed. A client
 * that goes away mid-body is `ClientAborted`, logged as such rather than as an internal error.
 */
import type { Context } from 'koa';
import { ClientAborted } from '../../domain/errors';
import { BrokerError } from '../errors';

export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limitBytes) throw new BrokerError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limitBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limitBytes) {
        ctx.req.destroy();
        throw new BrokerError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limitBytes} bytes`);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof BrokerError) throw error;
    throw new ClientAborted({ cause: error });
  }
  if (size === 0) return undefined;
  if (!ctx.is('application/json')) throw new BrokerError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (error) {
    throw new BrokerError('MALFORMED_JSON', 'Request body is not valid JSON', { cause: error });
  }
}
