import { badRequest } from '../api/errors.ts';
import type { StoredKubeObject } from '../api/types.ts';
import type { ObjectFilter } from '../storage/storage.ts';
import type { KindDefinition } from './kind.ts';
import { escapeFieldValue, matchesFields, METADATA_FIELDS, parseFieldSelector, requiredName, type FieldSelector, type SelectableFields } from '../api/selectors/field-selector.ts';
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

/**
 * Parses the labelSelector and fieldSelector query values (400 on bad input). A request for one
 * object by name (the legacy `/watch/.../<name>` path) selects metadata.name: a field selector next to
 * it must require exactly that name, as upstream's list handler rules.
 */
export function parseSelectors(kind: KindDefinition, labelSelector?: string, fieldSelector?: string, name?: string): ParsedSelectors {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  let fields = fieldSelector ? parseFieldSelector(fieldSelector, selectableFields(kind)) : [];
  if (name) {
    if (fields.length === 0) fields = parseFieldSelector(`metadata.name=${escapeFieldValue(name)}`, selectableFields(kind));
    else if (requiredName(fields) !== name) throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  if (labels.length === 0 && fields.length === 0) return { labels, fields };
  const filter: ObjectFilter = {
    labels,
    fields,
    matches: (obj: StoredKubeObject) => matchesLabels(labels, obj.metadata?.labels) && matchesFields(fields, obj),
  };
  return { labels, fields, filter };
}

