/** The public error reference that every error's `documentation` URL points into (anchors are lowercase codes). */
import type { Handler } from '../contract/operation';
import { ERROR_CODES, REASON_CODES } from '../../domain/error-codes';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function renderPage(): string {
  const rows = Object.entries(ERROR_CODES)
    .map(
      ([code, { status, description }]) =>
        `<tr id="${code.toLowerCase()}"><td><a href="#${code.toLowerCase()}"><code>${code}</code></a></td><td>${status}</td><td>${escapeHtml(description)}</td></tr>`,
    )
    .join('\n');
  const reasons = Object.entries(REASON_CODES)
    .map(([code, { description }]) => `<tr id="${code.toLowerCase()}"><td><a href="#${code.toLowerCase()}"><code>${code}</code></a></td><td>200 (a reason)</td><td>${escapeHtml(description)}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}tr:target{background:#fff3c4}</style></head>
<body><h1>Error reference</h1>
<p>Every failure is JSON <code>{"code", "message", "documentation"}</code>. Use the HTTP status and <code>code</code> as the contract; messages are descriptive.</p>
<table><thead><tr><th>code</th><th>HTTP</th><th>meaning</th></tr></thead><tbody>
${rows}
${reasons}
</tbody></table></body></html>`;
}

export function errorReference(): Handler {
  const page = renderPage();
  return (ctx) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = page;
  };
}
