/**
 * Server-rendered HTML for the console: a tagged template that escapes every interpolated value (only `Html` made by
 * this module passes through as is), the page layout with its navigation, and small building blocks (tables, JSON,
 * times, forms carrying the session's anti-forgery token). No client framework: the pages are HTML; a few lines of
 * script (assets.ts) add confirmation dialogs and the live refresh of open workflows.
 */
import type { ConsoleNotice } from './session';

/** Markup that is already safe to send. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value as string | number | boolean));
}

/** html`<p>${text}</p>`: values escaped, `Html` values and arrays of them kept. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return new Html(text);
}

/** A URL with query parameters (empty ones left out). */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

export const enc = encodeURIComponent;

/** A JSON value, whole, pretty-printed. */
export function jsonBlock(value: unknown): Html {
  if (value === undefined) return html`<span class="muted">—</span>`;
  return html`<pre class="json">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A short inline JSON value (whole; long ones wrap). */
export function jsonInline(value: unknown): Html {
  if (value === undefined) return html``;
  return html`<code class="inline-json">${typeof value === 'string' ? value : JSON.stringify(value)}</code>`;
}

/** An instant as UTC wall-clock time, with the ISO form as its title. */
export function time(value: Date | string | number | null | undefined): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return html`<span class="muted">—</span>`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}" title="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

export function badge(text: string): Html {
  return html`<span class="badge badge-${text.toLowerCase().replace(/[^a-z]+/g, '-')}">${text}</span>`;
}

/** A form posting to a console action with the session's anti-forgery token; `confirm` asks before it is sent. */
export function actionForm(options: { action: string; csrf: string; fields?: Record<string, string>; confirm?: string; body: Html; className?: string }): Html {
  const hidden = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="/console/actions/${options.action}" class="${options.className ?? 'action'}" ${options.confirm ? html`data-confirm="${options.confirm}"` : ''}>
<input type="hidden" name="csrf" value="${options.csrf}">${hidden}${options.body}</form>`;
}

export interface LayoutOptions {
  title: string;
  /** The signed-in operator (absent on the sign-in page). */
  operator?: { name: string; csrf: string };
  /** A message from the last action. */
  notice?: ConsoleNotice;
  /** Refresh the `[data-live]` parts of the page every few seconds. */
  live?: boolean;
  body: Html;
}

const NAV: [string, string][] = [
  ['/console', 'Overview'],
  ['/console/workflows', 'Workflows'],
  ['/console/partner-requests', 'Partner requests'],
  ['/console/redemptions', 'Redemptions'],
  ['/console/chains', 'Chains'],
  ['/console/controls', 'Controls'],
  ['/console/audit', 'Audit'],
];

export function layout(options: LayoutOptions): Html {
  const operator = options.operator;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Issuer console</title><link rel="stylesheet" href="/console/assets/console.css"><script src="/console/assets/console.js" defer></script></head>
<body${options.live ? html` data-live-page="1"` : ''}>
<header class="top"><a class="brand" href="/console">Issuer console</a>
${operator ? html`<nav>${NAV.map(([path, label]) => html`<a href="${path}">${label}</a>`)}</nav>
<form class="find" method="get" action="/console/find"><input name="id" placeholder="Any id: request, tokenization, workflow, tx hash" aria-label="Find by id"><button>Find</button></form>
<span class="who">${operator.name}</span>${actionForm({ action: 'sign-out', csrf: operator.csrf, body: html`<button class="link">Sign out</button>` })}` : ''}
</header>
<main>
${options.notice ? html`<p class="notice notice-${options.notice.kind}" role="status">${options.notice.text}</p>` : ''}
<h1>${options.title}</h1>
${options.body}
</main></body></html>`;
}

/** A table: headers and rows of cells; an empty body says so. */
export function table(headers: readonly string[], rows: readonly Html[][], empty = 'Nothing here.'): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table><thead><tr>${headers.map((header) => html`<th>${header}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
}

/** A definition list of label → value. */
export function fields(entries: readonly [string, Html | string | number | null | undefined][]): Html {
  return html`<dl class="fields">${entries.map(([label, value]) => html`<dt>${label}</dt><dd>${value ?? html`<span class="muted">—</span>`}</dd>`)}</dl>`;
}
