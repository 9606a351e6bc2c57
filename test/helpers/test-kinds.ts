import { defineKind, type KindDefinition, type KindInput } from '../../src/registry/kind.ts';

/**
 * Gadget (test.example.com/v1, namespaced): a kind made for tests of the machinery. It is stored apart
 * from every built-in kind and borrows ConfigMap's schema (data, binaryData, immutable). Tests give it
 * the hooks and kind data they are about.
 */
export function gadgetKind(overrides: Partial<KindInput> = {}): KindDefinition {
  return defineKind({
    group: 'test.example.com',
    version: 'v1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: true,
    schemaMessage: 'k8s.io.api.core.v1.ConfigMap',
    ...overrides,
  });
}
