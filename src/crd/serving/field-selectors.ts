/**
 * A version's `selectableFields` as field selectors: `.spec.color` selects as `spec.color`
 * (metadata.name and metadata.namespace are every kind's). CRD validation allows only simple dot
 * paths to string, integer and boolean fields here.
 */
import type { SelectableFields } from '../../api/selectors/field-selector.ts';
import type { CrdVersion } from '../validation/types.ts';

export function customResourceFieldSelectors(version: CrdVersion): SelectableFields {
  const out: Record<string, readonly string[]> = {};
  for (const f of version.selectableFields ?? []) {
    const path = (f.jsonPath ?? '').replace(/^\./, '');
    if (path) out[path] = Object.freeze(path.split('.'));
  }
  return Object.freeze(out);
}
