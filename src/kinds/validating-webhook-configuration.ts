import type { KubeObject } from '../api/types.ts';
import { defineKind } from '../registry/kind.ts';
import { CREATE_OPTIONS, defaultWebhook, updateOptions, webhookConfigurationErrors, webhooksOf } from './webhook-configuration-rules.ts';

function defaults(obj: KubeObject): void {
  for (const hook of webhooksOf(obj)) defaultWebhook(hook, false);
}

/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: HTTPS endpoints asked to accept
 * or refuse requests (the ValidatingAdmissionWebhook plugin calls them). Generation moves with the
 * webhooks; an update must name the resourceVersion it replaces, as upstream's strategy says.
 */
export const validatingWebhookConfigurations = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  plural: 'validatingwebhookconfigurations',
  namespaced: false,
  categories: ['api-extensions'],
  schemaMessage: 'k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration',
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  tableColumns: [{ name: 'Webhooks', type: 'integer', description: 'Webhooks indicates the number of webhooks.', cell: (o) => webhooksOf(o).length }],
  strategy: {
    default: (_ctx, obj) => defaults(obj),
    validate: (_ctx, obj) => webhookConfigurationErrors(obj, false, CREATE_OPTIONS),
    validateUpdate: (_ctx, obj, old) => webhookConfigurationErrors(obj, false, updateOptions(webhooksOf(obj), webhooksOf(old))),
  },
});
