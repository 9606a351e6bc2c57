/**
 * A schema node's declaration as the CEL environment takes it: the type of `self` in cel-js
 * notation and the object types it names, and the size estimator the cost estimator asks about
 * field paths (`self.spec.items[i]` is `['self', 'spec', 'items', '@items']`).
 *
 * Object types are named as upstream's MaybeAssignTypeName names them: the root `selfType<n>` (a
 * fresh n per compilation, so that no rule can come to depend on the name), a field's type
 * `<parent>.<field>`, a list's items `<parent>.@idx` and a map's values `<parent>.@elem`. cel-js
 * allows no `@` in a type name, so `.__at__idx` stands for `.@idx` (no escaped property name can
 * be `__at__idx`) and compile errors are given back upstream's spelling.
 */
import type { AstNode, ObjectTypeDecl, SizeEstimate, SizeEstimator } from '../../cel/index.ts';
import type { DeclType } from './decl-type.ts';
import { RESERVED_WORDS } from './escaping.ts';

const IDX = '__at__idx';
const ELEM = '__at__elem';

export interface Declarations {
  /** The type of `self` (and `oldSelf`) in cel-js notation. */
  readonly selfType: string;
  /** The object types it uses, nested ones first. */
  readonly objectTypes: readonly ObjectTypeDecl[];
}

let counter = 0;

/** A fresh root type name, as upstream's `selfType<nanoseconds>`. */
export function uniqueSelfTypeName(): string {
  counter = (counter + 1) % 1_000_000_000;
  return `selfType${(Number(process.hrtime.bigint() % 1_000_000_000n) + counter) % 1_000_000_000}`;
}

/** The declarations of a node's type, its object types named under `rootName`. */
export function declarations(decl: DeclType, rootName: string): Declarations {
  const objectTypes: ObjectTypeDecl[] = [];
  const typeOf = (t: DeclType, name: string): string => {
    switch (t.kind) {
      case 'object': {
        const fields: Record<string, string> = {};
        for (const [field, f] of t.fields ?? []) {
          fields[field] = typeOf(f.type, `${name}.${field}`);
          // Since 1.31 a reserved word selects its escaped field too (`self.namespace` is `self.__namespace__`).
          const word = /^__([a-z]+)__$/.exec(field)?.[1];
          if (word !== undefined && RESERVED_WORDS.has(word)) fields[word] = fields[field];
        }
        objectTypes.push({ name, fields });
        return name;
      }
      case 'list':
        return `list<${typeOf(t.elem!, `${name}.${IDX}`)}>`;
      case 'map':
        return `map<string, ${typeOf(t.elem!, `${name}.${ELEM}`)}>`;
      case 'string':
        return 'string';
      case 'bytes':
        return 'bytes';
      case 'duration':
        return 'google.protobuf.Duration';
      case 'timestamp':
        return 'google.protobuf.Timestamp';
      case 'bool':
        return 'bool';
      case 'int':
        return 'int';
      case 'double':
        return 'double';
      case 'dyn':
        return 'dyn';
    }
  };
  return { selfType: typeOf(decl, rootName), objectTypes };
}

/** A compile error's text with upstream's spelling of the generated type names. */
export function upstreamTypeNames(text: string): string {
  return text.replaceAll(`.${IDX}`, '.@idx').replaceAll(`.${ELEM}`, '.@elem');
}

/**
 * compilation.go's sizeEstimator: the largest size of the value a field path reaches from the
 * root (the variable's name, the path's first element, is skipped); undefined off the schema.
 */
export function schemaSizeEstimator(root: DeclType): SizeEstimator {
  return {
    estimateSize(node: AstNode): SizeEstimate | undefined {
      const path = node.path;
      if (!path || path.length === 0) return undefined;
      let t: DeclType = root;
      for (const name of path.slice(1)) {
        let next: DeclType | undefined;
        if (name === '@items' || name === '@values') next = t.elem;
        else if (name === '@keys') next = t.key;
        else next = t.fields?.get(name)?.type;
        if (!next) return undefined;
        t = next;
      }
      return { min: 0n, max: t.maxElements };
    },
  };
}
