/**
 * Fixtures of the custom resource kind tests: a CRD object (never stored: its kinds are built with
 * customResourceKinds and added to a test server's surface directly, without the CRD controllers).
 */
import type { CustomResourceDefinition } from '../../src/crd/validation/types.ts';

export const GROUP = 'kinds.example.com';

export const widgetSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.replicas <= 100', message: 'too many replicas' }],
      properties: {
        replicas: { type: 'integer', minimum: 0 },
        color: { type: 'string', default: 'blue', enum: ['blue', 'red', 'green'] },
        size: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
        immutable: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }] },
      },
    },
    status: {
      type: 'object',
      properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, phase: { type: 'string' } },
    },
  },
};

/** A namespaced CRD serving v1 (storage, status and scale) and a deprecated v1beta1. */
export function widgetCrd(options: { plural?: string; kind?: string; scope?: 'Namespaced' | 'Cluster'; accepted?: boolean } = {}): CustomResourceDefinition {
  const plural = options.plural ?? 'widgets';
  const kind = options.kind ?? 'Widget';
  const names = { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: ['wd'], categories: ['all', 'things'] };
  const version = (name: string, extra: Record<string, unknown>) => ({
    name,
    served: true,
    storage: name === 'v1',
    schema: { openAPIV3Schema: widgetSchema },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 },
    ],
    selectableFields: [{ jsonPath: '.spec.color' }],
    ...extra,
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}`, uid: 'crd-uid' },
    spec: {
      group: GROUP,
      names,
      scope: options.scope ?? 'Namespaced',
      versions: [version('v1', {}), version('v1beta1', { deprecated: true }), version('v0', { served: false })],
    },
    ...(options.accepted === false ? {} : { status: { acceptedNames: names, storedVersions: ['v1'] } }),
  };
}

export function widget(name: string, spec: Record<string, unknown> = { replicas: 1 }, version = 'v1') {
  return { apiVersion: `${GROUP}/${version}`, kind: 'Widget', metadata: { name }, spec };
}
