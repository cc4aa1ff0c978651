/**
 * HTTP basic authentication against the sandbox's stored credentials, and the role a route requires:
 * participants act on their own accounts, the issuer calls back.
 */
import type { Middleware } from 'koa';
import type { Pool } from 'pg';
import { BrokerError } from '../errors';
import { verifyCredential, type CredentialRole } from '../queries/credentials';
import type { BrokerState } from './state';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="brokerage-sandbox", charset="UTF-8"' };

function unauthorized(message: string): BrokerError {
  return new BrokerError('UNAUTHORIZED', message, { headers: CHALLENGE });
}

/** Decodes `Authorization: Basic base64(key:secret)`. */
function readBasic(header: string): { key: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function basicAuth(db: Pool): Middleware<BrokerState> {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header) throw unauthorized('Missing credentials: send the broker key and secret with HTTP basic authentication');
    const offered = readBasic(header);
    if (!offered) throw unauthorized('Malformed Authorization header: expected Basic base64(key:secret)');
    const role = await verifyCredential(db, offered.key, offered.secret);
    if (!role) throw unauthorized('Invalid broker key or secret');
    ctx.state.credential = { key: offered.key, role };
    await next();
  };
}

/** Refuses credentials of any other role with 403. */
export function requireRole(...roles: CredentialRole[]): Middleware<BrokerState> {
  return async (ctx, next) => {
    const credential = ctx.state.credential;
    if (!credential) throw unauthorized('Missing credentials');
    if (!roles.includes(credential.role)) {
      throw new BrokerError('FORBIDDEN', `This endpoint is not open to ${credential.role} credentials`);
    }
    await next();
  };
}
