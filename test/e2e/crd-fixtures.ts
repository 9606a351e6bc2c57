/**
 * CustomResourceDefinitions shared by the kubectl and client-node end-to-end tests:
 *
 * - a cert-manager-like Certificate (namespaced; status subresource; printer columns including the
 *   Ready condition's status; shortNames and a category; a CEL rule; schema defaults and an enum; a
 *   selectable field),
 *   in a group of the caller's choosing so that several tests can share one server;
 * - a two-version Gadget (v1alpha1 with `spec.host`, v1 with `spec.hosts`; v1 stored) converted by
 *   a real HTTPS webhook the test starts (the conversion tests' converter and CA).
 */
import { startConversionWebhook, success, type FakeConversionWebhook } from '../crd/conversion-fixtures.ts';

/** The message of the Certificate's CEL rule on `spec`. */
export const NEEDS_A_NAME = 'a certificate needs a commonName or at least one dnsName';

/** The Certificate CRD in `group` (its name is `certificates.<group>`). */
export function certificateCrd(group: string, category: string): Record<string, any> {
  const ready = '.status.conditions[?(@.type=="Ready")]';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `certificates.${group}`, labels: { app: 'cert-manager-like' } },
    spec: {
      group,
      names: { kind: 'Certificate', listKind: 'CertificateList', plural: 'certificates', singular: 'certificate', shortNames: ['cert', 'certs'], categories: [category] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          selectableFields: [{ jsonPath: '.spec.issuerRef.name' }],
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: `${ready}.status` },
            { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
            { name: 'Issuer', type: 'string', jsonPath: '.spec.issuerRef.name', priority: 1 },
            { name: 'Status', type: 'string', jsonPath: `${ready}.message`, priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is when the object was created.' },
          ],
          schema: { openAPIV3Schema: certificateSchema() },
        },
      ],
    },
  };
}

function certificateSchema(): Record<string, unknown> {
  return {
    type: 'object',
    description: 'A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Secret it names.',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        required: ['secretName', 'issuerRef'],
        'x-kubernetes-validations': [{ rule: 'has(self.commonName) || (has(self.dnsNames) && size(self.dnsNames) > 0)', message: NEEDS_A_NAME }],
        properties: {
          secretName: { type: 'string' },
          commonName: { type: 'string' },
          dnsNames: { type: 'array', items: { type: 'string' } },
          duration: { type: 'string', default: '2160h' },
          renewBefore: { type: 'string' },
          issuerRef: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, kind: { type: 'string', default: 'Issuer' }, group: { type: 'string' } },
          },
          privateKey: {
            type: 'object',
            default: {},
            properties: {
              algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'], default: 'RSA' },
              size: { type: 'integer' },
            },
          },
        },
      },
      status: {
        type: 'object',
        properties: {
          notAfter: { type: 'string', format: 'date-time' },
          conditions: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            items: {
              type: 'object',
              required: ['type', 'status'],
              properties: {
                type: { type: 'string' },
                status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                reason: { type: 'string' },
                message: { type: 'string' },
                lastTransitionTime: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      },
    },
  };
}

/** A Certificate of `group`/v1 named `name` in `namespace` with the given spec. */
export function certificate(group: string, namespace: string, name: string, spec: Record<string, unknown>): Record<string, any> {
  return { apiVersion: `${group}/v1`, kind: 'Certificate', metadata: { name, namespace }, spec };
}

/** The status a cert-manager controller writes once the certificate is issued. */
export function readyStatus(message = 'Certificate is up to date and has not expired'): Record<string, unknown> {
  return {
    notAfter: '2027-02-25T11:00:00Z',
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message, lastTransitionTime: '2026-11-27T11:00:00Z' }],
  };
}

/**
 * The Gadget CRD in `group`: v1alpha1 (`spec.host`, a string) and v1 (`spec.hosts`, a list; the
 * storage version), converted by the webhook at `converter`.
 */
export function gadgetCrd(group: string, converter: { url: string; caBundle: string }): Record<string, any> {
  const version = (name: string, storage: boolean, spec: Record<string, unknown>) => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
      scope: 'Namespaced',
      versions: [version('v1alpha1', false, { host: { type: 'string' } }), version('v1', true, { hosts: { type: 'array', items: { type: 'string' } } })],
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { url: converter.url, caBundle: converter.caBundle } },
      },
    },
  };
}

/** Moves a Gadget's spec between the versions: v1alpha1 `host` ⇄ v1 `hosts` (the first host). */
export function convertGadget(object: any, desiredAPIVersion: string): any {
  const spec = { ...(object.spec ?? {}) };
  if (desiredAPIVersion.endsWith('/v1')) {
    if (spec.host !== undefined) spec.hosts = [spec.host];
    delete spec.host;
  } else {
    if (Array.isArray(spec.hosts) && spec.hosts.length > 0) spec.host = spec.hosts[0];
    delete spec.hosts;
  }
  return { ...object, spec };
}

/** A real HTTPS conversion webhook that converts Gadgets (and records every ConversionReview). */
export async function startGadgetConverter(): Promise<FakeConversionWebhook> {
  const hook = await startConversionWebhook();
  hook.answer((review) => success(review, (o) => convertGadget(o, review.request.desiredAPIVersion)));
  return hook;
}

/** A Pool CRD in `group` with the scale subresource (spec.replicas, status.replicas, status.selector). */
export function poolCrd(group: string): Record<string, any> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `pools.${group}` },
    spec: {
      group,
      names: { kind: 'Pool', listKind: 'PoolList', plural: 'pools', singular: 'pool' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
}
