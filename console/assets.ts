/**
 * The console's stylesheet and script, served from the API process itself (`/console/assets/…`): nothing is fetched
 * from elsewhere and nothing is built. The script asks for confirmation before a form marked `data-confirm` is sent
 * and, on a page marked live, refreshes its `[data-live]` parts every 3 s while the tab is visible.
 */
export const CONSOLE_CSS = `
:root{--fg:#1d2330;--muted:#6b7385;--line:#dde1e8;--bg:#f6f7f9;--accent:#2556c7;--ok:#17803d;--bad:#b42318;--warn:#a15c07}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{display:flex;gap:16px;align-items:center;flex-wrap:wrap;padding:8px 20px;background:#101828;color:#fff}
header.top a{color:#d0d5dd}header.top .brand{font-weight:600;color:#fff}header.top nav{display:flex;gap:14px}
header.top .who{margin-left:auto;color:#98a2b3}header.top form{margin:0}
.find input{width:320px;padding:4px 6px;border-radius:4px;border:1px solid #475467;background:#1d2939;color:#fff}
main{padding:16px 20px 40px;max-width:1400px}h1{font-size:20px;margin:4px 0 14px}h2{font-size:16px;margin:22px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:#475467}
pre.json{margin:0;max-height:480px;overflow:auto;background:#fff;border:1px solid var(--line);padding:8px;white-space:pre-wrap;word-break:break-all;font-size:12px}
code.inline-json{font-size:12px;white-space:pre-wrap;word-break:break-all}
.muted{color:var(--muted)}.fields{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;background:#fff;border:1px solid var(--line);padding:10px;margin:0}
.fields dt{color:var(--muted)}.fields dd{margin:0;word-break:break-all}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;background:#eaecf0}
.badge-running,.badge-scheduled,.badge-waiting,.badge-pending,.badge-created,.badge-confirmed,.badge-delivering,.badge-outstanding,.badge-executing{background:#dbe6fe;color:#1e40af}
.badge-completed,.badge-fired,.badge-received,.badge-executed,.badge-done,.badge-minted,.badge-up,.badge-confirmed-tx{background:#d1fadf;color:#05603a}
.badge-failed,.badge-terminated,.badge-rejected,.badge-timed-out,.badge-refused,.badge-down,.badge-reverted{background:#fee4e2;color:#912018}
.badge-needs-review,.badge-cancelled,.badge-canceled,.badge-awaiting-finality,.badge-paused{background:#fef0c7;color:#93370d}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px}.card{background:#fff;border:1px solid var(--line);padding:10px;border-radius:6px}
.card .n{font-size:22px;font-weight:600}.card .l{color:var(--muted);font-size:12px}
.notice{padding:8px 12px;border-radius:4px}.notice-done{background:#d1fadf}.notice-error{background:#fee4e2}
form.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin-bottom:10px}form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
input,select,button,textarea{font:inherit;padding:4px 6px}button{cursor:pointer;border:1px solid #98a2b3;background:#fff;border-radius:4px}
button.danger{border-color:var(--bad);color:var(--bad)}button.link{border:0;background:none;color:#d0d5dd;padding:0}
form.action{display:inline-flex;gap:6px;align-items:center;margin:0 8px 8px 0;flex-wrap:wrap}
.actions{background:#fff;border:1px solid var(--line);padding:10px;margin:10px 0}
.tabs{display:flex;gap:4px;margin:8px 0}.tabs a{padding:4px 10px;border:1px solid var(--line);border-radius:4px 4px 0 0;background:#fff}.tabs a.on{background:#101828;color:#fff}
.pager{display:flex;gap:12px;margin:10px 0;align-items:center}
.timeline{background:#fff;border:1px solid var(--line);padding:8px}.tl-row{display:grid;grid-template-columns:260px 1fr;gap:8px;align-items:center;font-size:12px;margin:2px 0}
.tl-track{width:100%;height:14px;background:#f2f4f7}.tl-bar{fill:var(--accent)}
.tl-bar.failed,.tl-bar.timed-out,.tl-bar.terminated{fill:var(--bad)}.tl-bar.open{fill:var(--warn)}
.two{display:grid;grid-template-columns:1fr 1fr;gap:14px}@media(max-width:900px){.two{grid-template-columns:1fr}}
.signin{max-width:420px;margin:60px auto;background:#fff;border:1px solid var(--line);padding:20px;border-radius:6px}.signin input{width:100%;margin:6px 0 12px}
`;

export const CONSOLE_JS = `
document.addEventListener('submit', function (event) {
  var form = event.target;
  var question = form && form.getAttribute && form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});
if (document.body && document.body.hasAttribute('data-live-page')) {
  setInterval(function () {
    if (document.hidden) return;
    if (document.activeElement && /INPUT|SELECT|TEXTAREA/.test(document.activeElement.tagName)) return;
    fetch(location.href, { credentials: 'same-origin' }).then(function (answer) { return answer.ok ? answer.text() : null; }).then(function (text) {
      if (!text) return;
      var fresh = new DOMParser().parseFromString(text, 'text/html');
      document.querySelectorAll('[data-live]').forEach(function (part) {
        var next = fresh.getElementById(part.id);
        if (next) part.innerHTML = next.innerHTML;
      });
    }).catch(function () {});
  }, 3000);
}
`;
