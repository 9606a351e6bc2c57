import type { KindDefinition } from '../../registry/kind.ts';

/** What a document cached per served-kinds generation reads. */
export interface ServedKinds {
  readonly kinds: readonly KindDefinition[];
  readonly generation: number;
}

/**
 * A document that depends only on the served kinds (discovery, OpenAPI): built on first use and
 * kept until the set of served kinds changes.
 */
export function perSurface<T>(surface: ServedKinds, build: (kinds: readonly KindDefinition[]) => T): () => T {
  let built: { generation: number; value: T } | undefined;
  return () => {
    if (built?.generation !== surface.generation) built = { generation: surface.generation, value: build(surface.kinds) };
    return built.value;
  };
}
