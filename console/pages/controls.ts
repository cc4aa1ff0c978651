/**
 * `/console/controls` — the operator controls as forms over the admin routes: pause and resume the market and each
 * chain, pause or limit an asset and end it, schedule and delete asset events, and edit session limits. `/console/audit` — every
 * action taken through the console.
 */
import type { Database } from '../../db/pool';
import { listAudit } from '../../db/queries/console';
import { getMarketState, listCurrentAssetEvents } from '../../db/queries/operator-controls';
import { listSessionLimits } from '../../db/queries/session-limits';
import { listChainPauses } from '../../db/queries/chain-pauses';
import { CHAINS } from '../../domain/chains';
import { EVENT_REASONS } from '../../api/v1/status/create-scheduled-event';
import { actionForm, badge, href, html, table, time, type Html } from '../html';

export async function controlsPage(db: Database, parameters: { csrf: string; now: number }): Promise<Html> {
  const { csrf } = parameters;
  const [market, events, limits, chainPauses] = await Promise.all([
    getMarketState(db),
    listCurrentAssetEvents(db, parameters.now),
    listSessionLimits(db),
    listChainPauses(db),
  ]);
  const pauses = new Map(chainPauses.map((pause) => [pause.chain, pause]));
  return html`
<h2>Market</h2>
<p>${badge(market.paused ? 'paused' : 'open for orders')} ${market.reason ?? ''}</p>
${market.paused
  ? actionForm({ action: 'market-resume', csrf, confirm: 'Resume the market?', body: html`<input name="reason" placeholder="reason" aria-label="Reason"><button>Resume the market</button>` })
  : actionForm({ action: 'market-pause', csrf, confirm: 'Pause the whole market? No attestation is issued while paused.', body: html`<input name="reason" required placeholder="reason clients will read" aria-label="Reason"><button class="danger">Pause the market</button>` })}
<h2>Chains</h2>
${table(
  ['Chain', 'Status', 'Reason', 'Since', ''],
  CHAINS.map((chain) => {
    const pause = pauses.get(chain);
    return [
      html`${chain}`,
      badge(pause ? 'paused' : 'open for orders'),
      html`${pause?.reason ?? ''}`,
      time(pause?.pausedAt),
      pause
        ? actionForm({ action: 'chain-resume', csrf, fields: { chainId: chain }, confirm: `Resume ${chain}?`, body: html`<input name="reason" placeholder="reason" aria-label="Reason"><button>Resume</button>` })
        : actionForm({
            action: 'chain-pause',
            csrf,
            fields: { chainId: chain },
            confirm: `Pause ${chain}? No attestation or soft quote on it while paused; issued attestations still execute.`,
            body: html`<input name="reason" required placeholder="reason" aria-label="Reason"><button class="danger">Pause</button>`,
          }),
    ];
  }),
)}
<h2>Assets</h2>
${actionForm({
  action: 'asset-control',
  csrf,
  confirm: 'Apply this control to the asset?',
  body: html`<input name="symbol" required placeholder="symbol, e.g. AAPLon" aria-label="Symbol"><select name="code" aria-label="Control"><option value="pause">pause</option><option value="limit">limit</option></select><input name="reason" required placeholder="reason clients will read" aria-label="Reason"><input name="end" placeholder="until (ISO time, optional)" aria-label="Until"><button>Apply</button>`,
})}
${table(
  ['Asset', 'Status', 'Kind', 'Reason', 'From', 'Until', ''],
  events.map((event) => [
    html`${event.symbol}`,
    badge(event.code),
    html`${event.type}`,
    html`${event.reason}`,
    time(event.startsAt),
    time(event.endsAt),
    event.source === 'catalogue'
      ? html`<span class="muted">the catalogue's dividend</span>`
      : event.type === 'scheduled'
      ? actionForm({ action: 'event-delete', csrf, fields: { eventId: event.eventId }, confirm: `Delete the scheduled event ${event.eventId}?`, body: html`<input name="reason" placeholder="reason" aria-label="Reason"><button class="danger">Delete</button>` })
      : actionForm({ action: 'asset-end', csrf, fields: { symbol: event.symbol, code: event.code === 'ASSET_PAUSED' ? 'pause' : 'limit' }, confirm: `End the ${event.code} of ${event.symbol}?`, body: html`<input name="reason" placeholder="reason" aria-label="Reason"><button>End</button>` }),
  ]),
  'Every asset trades normally.',
)}
<h2>Schedule an asset event</h2>
${actionForm({
  action: 'event-create',
  csrf,
  confirm: 'Schedule this event?',
  body: html`<input name="symbol" required placeholder="symbol" aria-label="Symbol"><select name="code" aria-label="Control"><option>ASSET_PAUSED</option><option>ASSET_LIMITED</option><option>ASSET_REDEEM_ONLY</option></select><select name="eventReason" aria-label="Event">${EVENT_REASONS.map((reason) => html`<option>${reason}</option>`)}</select><input name="start" required placeholder="start (ISO time)" aria-label="Start"><input name="end" required placeholder="end (ISO time)" aria-label="End"><label><input type="checkbox" name="updateSharesMultiplier" value="1"> changes the multiplier</label><input name="reason" placeholder="why (audit)" aria-label="Reason"><button>Schedule</button>`,
})}
<h2>Session limits</h2>
${table(
  ['Asset', 'Session', 'Tradable', 'Max attestations', 'Max active notional', 'Max session notional', ''],
  limits.map((limit) => [
    html`${limit.symbol}`,
    html`${limit.session}`,
    html`${limit.tradable ? 'yes' : 'no'}`,
    html`${limit.maxAttestationCount}`,
    html`${limit.maxActiveNotionalValue}`,
    html`${limit.maxSessionNotionalValue}`,
    actionForm({
      action: 'session-limit',
      csrf,
      fields: { symbol: limit.symbol, session: limit.session },
      confirm: `Change the ${limit.session} limits of ${limit.symbol}?`,
      body: html`<select name="tradable" aria-label="Tradable"><option value="true" ${limit.tradable ? 'selected' : ''}>tradable</option><option value="false" ${limit.tradable ? '' : 'selected'}>not tradable</option></select><input name="maxAttestationCount" size="5" value="${limit.maxAttestationCount}" aria-label="Max attestations"><input name="maxActiveNotionalValue" size="10" value="${limit.maxActiveNotionalValue}" aria-label="Max active notional"><input name="reason" size="10" placeholder="reason" aria-label="Reason"><button>Save</button>`,
    }),
  ]),
)}`;
}

export async function auditPage(db: Database, query: { target?: string; before?: string }): Promise<Html> {
  const before = query.before && /^\d{1,18}$/.test(query.before) ? query.before : undefined;
  const entries = await listAudit(db, { target: query.target || undefined, before, limit: 101 });
  return html`
<form class="filters" method="get" action="/console/audit"><label>Target<input name="target" value="${query.target ?? ''}"></label><button>Filter</button></form>
${auditTable(entries.slice(0, 100))}
<div class="pager">${entries.length > 100 ? html`<a rel="next" href="${href('/console/audit', { target: query.target, before: entries[99]!.id })}">Older</a>` : ''}</div>`;
}

export function auditTable(entries: Awaited<ReturnType<typeof listAudit>>): Html {
  return table(
    ['When', 'Who', 'Action', 'Target', 'Reason', 'Outcome', 'Detail'],
    entries.map((entry) => [time(entry.at), html`${entry.keyName} <span class="muted">(${entry.keyId})</span>`, html`${entry.action}`, html`${entry.target}`, html`${entry.reason ?? ''}`, badge(entry.outcome), html`${entry.detail ?? ''}`]),
    'No action yet.',
  );
}
