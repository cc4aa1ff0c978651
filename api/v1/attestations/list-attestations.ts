/**
 * GET /v1/attestations — the calling account's attestations, newest first: filter by `state`, `symbol` and creation
 * time (`createdAfter` inclusive, `createdBefore` exclusive, epoch ms or ISO-8601), `limit` per page (1–100, default
 * 50), and `cursor` from the previous page's `nextCursor`. This is how a client finds an attestation stored while
 * its connection broke (it counts against the account's limits until it expires, or, once its execution is seen on-chain,
 * until that execution is final).
 */
import { z } from 'zod';
import { listAccountAttestations } from '../../../db/queries/attestation-list';
import { symbolSchema } from '../../../domain/token-symbol';
import { defineOperation } from '../../contract/operation';
import { instantParameter, parameterText } from '../../framework/parameters';
import { attestationRecordView, callerOf } from './context';
import { attestationPageSchema, type AttestationPage } from './schemas';

/** A cursor is the last row's `createdAt.attestationId`, base64url-encoded; clients treat it as opaque. */
const cursor = parameterText(200)
  .transform((value, context) => {
    const match = /^(\d{1,15})\.(\d{1,39})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
    if (!match) {
      context.addIssue({ code: 'custom', message: 'is not a cursor from a previous page' });
      return z.NEVER;
    }
    return { createdAt: Number(match[1]), attestationId: match[2]! };
  });

const listQuery = z.strictObject({
  state: z.enum(['outstanding', 'executing', 'executed', 'expired']).optional().describe('Only attestations in this state (as clients see it).'),
  symbol: symbolSchema.optional().describe('Only attestations of this token.'),
  createdAfter: instantParameter.optional().describe('Created at or after this time: epoch ms or ISO-8601.'),
  createdBefore: instantParameter.optional().describe('Created before this time: epoch ms or ISO-8601.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Attestations per page, 1–100.'),
  cursor: cursor.optional().describe("The previous page's `nextCursor`."),
});

export const listAttestationsOperation = defineOperation({
  method: 'get',
  path: '/v1/attestations',
  operationId: 'listAttestations',
  summary: "The account's attestations",
  description:
    "The calling account's attestations, newest first, as `GET /v1/attestations/{attestationId}` shows each: how a client finds an attestation stored while its connection broke (it counts against the account's limits until it expires or, once `executing`, until its execution is final). Filter by `state`, `symbol` and creation time; page with `limit` and the previous page's `nextCursor`. A key without an account (read-only) is refused.",
  access: 'read',
  query: listQuery,
  fieldCodes: { symbol: 'INVALID_SYMBOL' },
  answers: { 200: { description: 'One page of attestations.', schema: attestationPageSchema } },
  errors: ['READ_ONLY_API_KEY'],
  handler: (services) => async (ctx, { query }) => {
    const { accountId } = callerOf(ctx);
    const now = services.clock();
    const rows = await listAccountAttestations(services.db, {
      accountId,
      now,
      state: query.state,
      symbol: query.symbol,
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    ctx.body = {
      attestations: page.map((stored) => attestationRecordView(stored, now)),
      nextCursor: rows.length > query.limit && last ? Buffer.from(`${last.createdAt}.${last.attestationId}`).toString('base64url') : null,
    } satisfies AttestationPage;
  },
});
