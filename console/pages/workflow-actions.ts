/** The forms of a running workflow's actions: the product's signals (resume, assign a client), cancel, terminate. */
import { actionForm, html, type Html } from '../html';

/** The partner request a partner workflow carries (`partner-mint-<id>`, or a redemption's own id). */
export function partnerRequestIdOf(workflowId: string, type: string): string | undefined {
  if (type === 'partnerMintWorkflow') return workflowId.replace(/^partner-mint-/, '');
  if (type === 'redemptionWorkflow') return workflowId;
  return undefined;
}

export function partnerRequestActions(issuerRequestId: string, csrf: string, options: { needsClient: boolean }): Html {
  return html`${actionForm({
    action: 'partner-resume',
    csrf,
    fields: { request: issuerRequestId },
    confirm: `Resume request ${issuerRequestId}?`,
    body: html`${options.needsClient ? html`<input name="clientId" placeholder="client id to assign" aria-label="Client id to assign">` : ''}<input name="reason" placeholder="reason" aria-label="Reason for resuming"><button name="do" value="resume">${options.needsClient ? 'Assign client and resume' : 'Resume'}</button>`,
  })}
${actionForm({
  action: 'partner-reject',
  csrf,
  fields: { request: issuerRequestId },
  confirm: `Reject request ${issuerRequestId}? This cannot be undone.`,
  body: html`<input name="reason" required placeholder="reason (required)" aria-label="Reason for rejecting"><button class="danger">Reject</button>`,
})}`;
}

export function workflowActions(options: { workflowId: string; type: string; csrf: string; state?: unknown }): Html {
  const { workflowId, csrf } = options;
  const requestId = partnerRequestIdOf(workflowId, options.type);
  const step = (options.state as { step?: string; state?: string } | undefined)?.step;
  return html`
${requestId ? partnerRequestActions(requestId, csrf, { needsClient: options.type === 'redemptionWorkflow' && step === 'needs_review' }) : ''}
${options.type === 'chainWatcherWorkflow'
  ? actionForm({
      action: 'watcher-resume',
      csrf,
      fields: { workflowId },
      confirm: `Resume the watcher ${workflowId}?`,
      body: html`<label><input type="checkbox" name="reanchor" value="1"> re-anchor</label><input name="fromBlock" placeholder="from block (optional)" aria-label="From block"><input name="reason" placeholder="reason" aria-label="Reason"><button>Resume watcher</button>`,
    })
  : ''}
${actionForm({
  action: 'workflow-cancel',
  csrf,
  fields: { workflowId },
  confirm: `Ask ${workflowId} to cancel?`,
  body: html`<input name="reason" placeholder="reason" aria-label="Reason for cancelling"><button class="danger">Cancel</button>`,
})}
${actionForm({
  action: 'workflow-terminate',
  csrf,
  fields: { workflowId },
  confirm: `Terminate ${workflowId}? It stops at once, without cleaning up.`,
  body: html`<input name="reason" required placeholder="reason (required)" aria-label="Reason for terminating"><button class="danger">Terminate</button>`,
})}`;
}
