import type { StoredKubeObject } from '../api/types.ts';
import type { ObjectFilter } from '../storage/storage.ts';
import type { KindDefinition } from './kind.ts';
import { matchesFields, METADATA_FIELDS, parseFieldSelector, type FieldSelector, type SelectableFields } from '../api/selectors/field-selector.ts';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../api/selectors/label-selector.ts';

/** The fields a kind can be selected on: metadata.name, metadata.namespace and the kind's own. */
export function selectableFields(kind: KindDefinition): SelectableFields {
  return { ...METADATA_FIELDS, ...kind.fieldSelectors };
}

export interface ParsedSelectors {
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  /** Undefined when both selectors are empty (no filtering at all). */
  readonly filter?: ObjectFilter;
}

/** Parses the labelSelector and fieldSelector query values (400 on bad input). */
export function parseSelectors(kind: KindDefinition, labelSelector?: string, fieldSelector?: string): ParsedSelectors {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  const fields = fieldSelector ? parseFieldSelector(fieldSelector, selectableFields(kind)) : [];
  if (labels.length === 0 && fields.length === 0) return { labels, fields };
  const filter: ObjectFilter = {
    labels,
    fields,
    matches: (obj: StoredKubeObject) => matchesLabels(labels, obj.metadata?.labels) && matchesFields(fields, obj),
  };
  return { labels, fields, filter };
}
