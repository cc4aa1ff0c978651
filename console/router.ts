/**
 * The operator console, served by the API process under `/console`: sign-in (an admin key for a session), the pages
 * (overview, workflows, a workflow, partner requests, a request by any id, redemptions, an attestation, chains,
 * controls, audit) and the actions, each checked for the session, its anti-forgery token and the origin, and
 * recorded in the audit whatever its outcome. Pages are rendered on the server (html.ts); lists are paged by the
 * database or the workflow service, never in the browser.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { FailedAuthentications } from '../access/failed-auth';
import type { ApiServices } from '../api/services';
import type { ApiState } from '../api/framework/state';
import { withTemporal } from '../api/v1/workflows/temporal-client';
import { ApiError, ClientAborted } from '../domain/errors';
import { unstorableText } from '../domain/input-text';
import { findOwnAuditEntry, recordAudit } from '../db/queries/console';
import { findPartnerRequestByAnyId } from '../db/queries/partner-requests';
import { CONSOLE_ACTIONS, type ConsoleAction, type Fields } from './actions';
import { CONSOLE_CSS, CONSOLE_JS } from './assets';
import { html, layout, type Html } from './html';
import { attestationPage, chainsPage, partnerQueuePage, partnerRequestPage, redemptionsPage } from './pages/business';
import { auditPage, controlsPage } from './pages/controls';
import { overviewPage } from './pages/overview';
import { workflowListPage, workflowPage } from './pages/workflows';
import { AUDIT_ID, consoleInput, type ConsoleInput, type ConsoleRouteKey } from './routes';
import { ConsoleSessions, sameOrigin, validCsrf, type ConsoleContext, type ConsoleNotice, type SignedIn } from './session';

export interface ConsoleOptions {
  /** The failed-authentication throttle the API's keys are under (one per process). */
  failures: FailedAuthentications;
  /** How long a session lasts. */
  sessionTtlMs: number;
}

const FORM_LIMIT_BYTES = 16 * 1024;

async function readForm(ctx: ConsoleContext): Promise<Fields> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > FORM_LIMIT_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', `A console form takes at most ${FORM_LIMIT_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ClientAborted({ cause: error });
  }
  if (size > 0 && !ctx.is('application/x-www-form-urlencoded')) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'A console form is application/x-www-form-urlencoded');
  const fields: Fields = {};
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) fields[name] = value.trim();
  // Text PostgreSQL cannot store (a NUL) would fail the audit's own insert: refused like the API's bodies.
  const unstorable = unstorableText(fields);
  if (unstorable) throw new ApiError('INVALID_REQUEST_BODY', `Invalid form field ${unstorable.path.join('.')}: ${unstorable.problem}`);
  return fields;
}

export function consoleRouter(services: ApiServices, options: ConsoleOptions): Router<ApiState> {
  const sessions = new ConsoleSessions(services.db, services.keys, options.failures, options.sessionTtlMs);
  const router = new Router<ApiState>({ prefix: '/console' });

  const page = (ctx: ConsoleContext, status: number, title: string, body: Html, extra: { live?: boolean; session?: SignedIn } = {}) => {
    const session = extra.session ?? ctx.state.console;
    ctx.status = status;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('cache-control', 'no-store');
    ctx.set('content-security-policy', "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'");
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'same-origin');
    ctx.body = layout({
      title,
      operator: session && { name: session.key.name, csrf: session.csrf },
      notice: ctx.state.notice,
      live: extra.live,
      body,
    }).text;
  };

  // Errors as pages, not JSON; a refused request keeps its status.
  const errors: Middleware<ApiState> = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof ClientAborted) throw error;
      const status = error instanceof ApiError ? error.status : 500;
      if (status >= 500) services.logger.error({ err: error, requestId: ctx.state.requestId }, 'console page failed');
      const message = error instanceof ApiError ? `${error.code}: ${error.message}` : `Something failed (request ${ctx.state.requestId}); the server log has it.`;
      page(ctx as ConsoleContext, status, status === 404 ? 'Not found' : 'Error', html`<p class="notice notice-error">${message}</p>`);
    }
  };
  router.use(errors);

  /** Mounts route `key` (console/routes.ts): its page or action is handed the parameters its schemas parsed. */
  const mount = <K extends ConsoleRouteKey>(key: K, show: (ctx: ConsoleContext, input: ConsoleInput<K>) => unknown) => {
    const [method, path] = key.split(' ') as ['GET' | 'POST', string];
    const handle = async (ctx: Parameters<Parameters<typeof router.get>[1]>[0]) => {
      const c = ctx as ConsoleContext;
      await show(c, consoleInput(key, c));
    };
    if (method === 'GET') router.get(path, handle);
    else router.post(path, handle);
  };

  mount('GET /assets/console.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('cache-control', 'public, max-age=300');
    ctx.body = CONSOLE_CSS;
  });
  mount('GET /assets/console.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.set('cache-control', 'public, max-age=300');
    ctx.body = CONSOLE_JS;
  });

  const signInForm = (message?: string) => html`<form class="signin" method="post" action="/console/sign-in">
${message ? html`<p class="notice notice-error" role="alert">${message}</p>` : ''}
<label for="key">Admin API key</label><input id="key" name="key" type="password" autocomplete="off" required autofocus>
<button>Sign in</button><p class="muted">The key is exchanged for a session; it is not kept in the browser.</p></form>`;

  mount('GET /sign-in', (ctx) => page(ctx, 200, 'Sign in', signInForm()));
  mount('POST /sign-in', async (c) => {
    if (!sameOrigin(c)) return page(c, 403, 'Sign in', signInForm('Refused: the form was sent from another site.'));
    const fields = await readForm(c);
    const outcome = await sessions.signIn(c, fields.key ?? '');
    if (outcome.outcome === 'refused') return page(c, outcome.status, 'Sign in', signInForm(outcome.message));
    c.status = 303;
    c.redirect('/console');
  });

  /** `?notice=<audit id>` after an action (its schema checked the form): that entry's outcome, when the signed-in key recorded it; nothing else. */
  const noticeOf = async (ctx: ConsoleContext, session: SignedIn): Promise<ConsoleNotice | undefined> => {
    const id = ctx.method === 'GET' ? ctx.query.notice : undefined;
    if (typeof id !== 'string' || !AUDIT_ID.test(id)) return undefined;
    const entry = await findOwnAuditEntry(services.db, id, session.key.id);
    if (!entry?.detail) return undefined;
    return entry.outcome === 'done' ? { kind: 'done', text: entry.detail.slice(0, 500) } : { kind: 'error', text: `Refused: ${entry.detail.slice(0, 500)}` };
  };

  // Everything below takes a live session; pages send a browser without one to the sign-in form.
  router.use(async (ctx, next) => {
    const c = ctx as ConsoleContext;
    const session = await sessions.current(c);
    if (!session) {
      if (ctx.method === 'GET') {
        ctx.status = 303;
        ctx.redirect('/console/sign-in');
        return;
      }
      return page(c, 401, 'Sign in', signInForm('Your session has ended; sign in again.'));
    }
    c.state.console = session;
    c.state.notice = await noticeOf(c, session);
    await next();
  });

  const signedIn = (ctx: ConsoleContext) => ctx.state.console!;
  const temporal = () => {
    if (!services.temporal) throw new ApiError('TEMPORAL_UNAVAILABLE', 'This API process has no workflow service configured');
    return services.temporal;
  };

  mount('GET /', async (ctx) => {
    page(ctx, 200, 'Overview', await overviewPage({ db: services.db, broker: services.broker?.(), now: services.clock(), probes: services.readinessChecks }), { live: true });
  });
  mount('GET /workflows', async (ctx, { query }) => {
    page(ctx, 200, 'Workflows', await workflowListPage(temporal(), query));
  });
  mount('GET /workflows/:workflowId', async (ctx, { params: { workflowId }, query }) => {
    const shown = await withTemporal(workflowId, () => workflowPage(temporal(), workflowId, { view: query.view, page: query.page, csrf: signedIn(ctx).csrf }));
    page(ctx, 200, workflowId, shown.body, { live: shown.live });
  });
  mount('GET /partner-requests', async (ctx, { query }) => {
    page(ctx, 200, 'Partner requests', await partnerQueuePage(services.db, query));
  });
  mount('GET /partner-requests/:id', async (ctx, { params: { id } }) => {
    const request = await findPartnerRequestByAnyId(services.db, id);
    if (!request) throw new ApiError('REQUEST_NOT_FOUND', `No partner request has the id ${id}`);
    const shown = await partnerRequestPage({ db: services.db, temporal: services.temporal, broker: services.broker?.(), csrf: signedIn(ctx).csrf }, request);
    page(ctx, 200, `${request.kind === 'mint' ? 'Mint' : 'Redemption'} ${request.issuerRequestId}`, shown.body, { live: shown.live });
  });
  // Any id: a partner request's (issuer, broker, workflow, tx), an attestation's, else a workflow's.
  mount('GET /find', async (ctx, { query }) => {
    const id = query.id?.trim();
    if (!id) return ctx.redirect('/console');
    const request = await findPartnerRequestByAnyId(services.db, id);
    ctx.status = 303;
    if (request) return ctx.redirect(`/console/partner-requests/${encodeURIComponent(request.issuerRequestId)}`);
    if (/^\d{1,39}$/.test(id)) return ctx.redirect(`/console/attestations/${id}`);
    if (/^0x[0-9a-fA-F]{64}$/.test(id)) return ctx.redirect(`/console/chains?tx=${id}`);
    ctx.redirect(`/console/workflows/${encodeURIComponent(id)}`);
  });
  mount('GET /redemptions', async (ctx, { query }) => {
    page(ctx, 200, 'Redemptions', await redemptionsPage(services.db, query.page));
  });
  mount('GET /attestations/:id', async (ctx, { params: { id } }) => {
    const body = await attestationPage({ db: services.db, temporal: services.temporal, now: services.clock() }, id);
    if (!body) throw new ApiError('ATTESTATION_NOT_FOUND', `No attestation ${id}`);
    page(ctx, 200, `Attestation ${id}`, body);
  });
  mount('GET /chains', async (ctx, { query }) => {
    page(ctx, 200, 'Chains', await chainsPage(services.db, query, services.readinessChecks));
  });
  mount('GET /controls', async (ctx) => {
    page(ctx, 200, 'Controls', await controlsPage(services.db, { csrf: signedIn(ctx).csrf, now: services.clock() }));
  });
  mount('GET /audit', async (ctx, { query }) => {
    page(ctx, 200, 'Audit', await auditPage(services.db, query));
  });

  mount('POST /actions/:action', async (c, { params: { action: name } }) => {
    const ctx = c;
    const session = signedIn(c);
    const fields = await readForm(c);
    const audit = (action: string, target: string, outcome: 'done' | 'refused' | 'failed', detail: string | null) =>
      recordAudit(services.db, { keyId: session.key.id, keyName: session.key.name, action, target, reason: fields.reason || null, outcome, detail });
    if (!sameOrigin(c) || !validCsrf(session, fields.csrf)) {
      await audit(name, fields.workflowId ?? fields.request ?? '', 'refused', 'missing or wrong anti-forgery token, or sent from another site');
      return page(c, 403, 'Refused', html`<p class="notice notice-error">Refused: the form did not carry this session's anti-forgery token. Reload the page and try again.</p>`);
    }
    if (name === 'sign-out') {
      await sessions.signOut(c, session);
      ctx.status = 303;
      return ctx.redirect('/console/sign-in');
    }
    // The name is one of the declared actions (its schema lists them), never a property every object has.
    const action: ConsoleAction = CONSOLE_ACTIONS[name];
    const target = action.target(fields);
    const back = action.back(fields);
    // Back to the page with the audit entry's id: the page shows that entry's outcome, never text from the URL.
    const go = (auditId: string) => {
      ctx.status = 303;
      ctx.redirect(`${back}${back.includes('?') ? '&' : '?'}notice=${auditId}`);
    };
    if (action.reasonRequired && !fields.reason) {
      return go(await audit(name, target, 'refused', 'no reason given'));
    }
    try {
      const message = await withTemporal(fields.workflowId, () => action.run({ services, ctx: c, session, fields }));
      go(await audit(name, target, 'done', message));
    } catch (error) {
      if (!(error instanceof ApiError)) {
        await audit(name, target, 'failed', (error as Error).message);
        throw error;
      }
      go(await audit(name, target, 'refused', `${error.code}: ${error.message}`));
    }
  });

  return router;
}

