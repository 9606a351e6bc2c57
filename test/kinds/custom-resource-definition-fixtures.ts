/** CustomResourceDefinitions shared by the CRD kind's suites (store and HTTP). */
import type { KubeObject } from '../../src/api/types.ts';

type Json = Record<string, unknown>;

/** A minimal structural schema: an object whose spec keeps what it is given. */
export const openSchema = (): Json => ({
  type: 'object',
  properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
});

/** A one-version CRD `<plural>.<group>` of kind `kind`. */
export function simpleCrd(plural: string, group: string, kind: string, extra: { version?: Json; spec?: Json; meta?: Json } = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...extra.meta },
    spec: {
      group,
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: openSchema() }, ...extra.version }],
      ...extra.spec,
    },
  };
}

/** cert-manager's Certificate, cut down: status and scale subresources, printer columns, CEL, defaults, enums. */
export function certificateCrd(group = 'cert-manager.io'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `certificates.${group}`, labels: { app: 'cert-manager' } },
    spec: {
      group,
      names: { plural: 'certificates', singular: 'certificate', kind: 'Certificate', listKind: 'CertificateList', shortNames: ['cert', 'certs'], categories: ['cert-manager'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
            { name: 'Issuer', type: 'string', priority: 1, jsonPath: '.spec.issuerRef.name' },
            { name: 'Status', type: 'string', priority: 1, jsonPath: '.status.conditions[?(@.type=="Ready")].message' },
            { name: 'Age', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              description: 'A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in `spec.secretName`.',
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['issuerRef', 'secretName'],
                  'x-kubernetes-validations': [{ rule: 'self.duration.size() > 0', message: 'duration must not be empty' }],
                  properties: {
                    secretName: { type: 'string', maxLength: 253 },
                    commonName: { type: 'string' },
                    duration: { type: 'string', default: '2160h' },
                    replicas: { type: 'integer', format: 'int32', minimum: 0 },
                    dnsNames: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                    usages: { type: 'array', items: { type: 'string', enum: ['signing', 'digital signature', 'server auth', 'client auth'] } },
                    privateKey: {
                      type: 'object',
                      properties: {
                        algorithm: { type: 'string', enum: ['RSA', 'ECDSA', 'Ed25519'] },
                        size: { type: 'integer' },
                        rotationPolicy: { type: 'string', enum: ['Never', 'Always'] },
                      },
                    },
                    secretTemplate: {
                      type: 'object',
                      properties: { annotations: { type: 'object', additionalProperties: { type: 'string' } }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
                    },
                    issuerRef: {
                      type: 'object',
                      required: ['name'],
                      properties: { group: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer', format: 'int32' },
                    selector: { type: 'string' },
                    notAfter: { type: 'string', format: 'date-time' },
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['status', 'type'],
                        properties: {
                          lastTransitionTime: { type: 'string', format: 'date-time' },
                          message: { type: 'string' },
                          observedGeneration: { type: 'integer', format: 'int64' },
                          reason: { type: 'string' },
                          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                          type: { type: 'string' },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** Two versions, v1beta1 served and stored at first, v1 served. */
export function twoVersionCrd(plural = 'widgets', group = 'stable.example.com', kind = 'Widget'): KubeObject {
  const crd = simpleCrd(plural, group, kind);
  const spec = crd.spec as { versions: Json[] };
  spec.versions = [
    { name: 'v1beta1', served: true, storage: true, deprecated: true, deprecationWarning: `${group}/v1beta1 ${kind} is deprecated`, schema: { openAPIV3Schema: openSchema() } },
    { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: openSchema() } },
  ];
  return crd;
}

/** The spec of a stored CRD, typed loosely for tests. */
export const specOf = (o: KubeObject) => o.spec as { versions: Json[]; names: Json; conversion?: Json; preserveUnknownFields?: boolean; [k: string]: unknown };
export const statusOf = (o: KubeObject) => (o.status ?? {}) as { storedVersions?: string[]; acceptedNames?: Json; conditions?: Json[] };
