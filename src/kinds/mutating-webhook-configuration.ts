import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { CREATE_OPTIONS, defaultWebhook, updateOptions, webhookConfigurationErrors, webhooksOf } from './webhook-configuration-rules.ts';

function defaults(obj: KubeObject): void {
  for (const hook of webhooksOf(obj)) defaultWebhook(hook, true);
}

/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration: HTTPS endpoints asked to change
 * (JSONPatch) or refuse requests (the MutatingAdmissionWebhook plugin calls them, in name order of
 * their configurations). Generation moves with the webhooks; updates are conditional.
 */
export const mutatingWebhookConfigurations = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  namespaced: false,
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration',
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  tableColumns: [{ name: 'Webhooks', type: 'integer', description: 'Webhooks indicates the number of webhooks.', cell: (o) => webhooksOf(o).length }],
  strategy: {
    default: (_ctx, obj) => defaults(obj),
    validate: (_ctx, obj) => webhookConfigurationErrors(obj, true, CREATE_OPTIONS),
    validateUpdate: (_ctx, obj, old) => webhookConfigurationErrors(obj, true, updateOptions(webhooksOf(obj), webhooksOf(old))),
  },
});
