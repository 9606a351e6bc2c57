import { badRequest, invalid, type FieldError } from '../api/errors.ts';
import { parseQueryInt64 } from './list-options.ts';
import { messageSchema } from '../schema/type-schema.ts';
import { findTypeError } from './type-check.ts';

export interface DeleteOptions {
  readonly dryRun: boolean;
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  readonly orphanDependents?: boolean;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /**
   * Delete an object that cannot be read (see unsafe-delete.ts). Kept only while the
   * AllowUnsafeMalformedObjectDeletion gate is on; upstream drops it otherwise.
   */
  readonly ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** What parseDeleteOptions needs to know of the server. */
export interface DeleteOptionsContext {
  /** The AllowUnsafeMalformedObjectDeletion gate: without it ignoreStoreReadErrorWithClusterBreakingPotential is dropped. */
  readonly allowUnsafeDelete?: boolean;
}

const POLICIES = ['Orphan', 'Background', 'Foreground'] as const;

const DELETE_OPTIONS = 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions';

/** The schema knows these fields as strings; Go names their declared types. */
function goNamedTypes(message: string): string {
  return message
    .replace(/(Preconditions\.preconditions\.uid of type) string$/, '$1 types.UID')
    .replace(/(DeleteOptions\.propagationPolicy of type) string$/, '$1 v1.DeletionPropagation');
}

/** Go's `%#v` of a string list, as validation messages print it: `[]string{"a", "b"}`. */
function goStringList(values: readonly unknown[]): string {
  return `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

/**
 * A boolean query parameter as upstream's parameter codec reads one into a pointer: absent is unset,
 * `false` (any case) and `0` are false, anything else (a bare `?orphanDependents` too) is true.
 */
function queryBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** The dryRun values (a bare `?dryRun` counts as unset) and their validation errors; only `All` is supported. */
export function dryRunErrors(values: unknown): { dryRun: boolean; errors: FieldError[] } {
  const list = Array.isArray(values) ? values : values === undefined || values === null ? [] : [values];
  const set = list.filter((v) => v !== '');
  if (set.some((v) => v !== 'All')) {
    return { dryRun: true, errors: [{ type: 'FieldValueNotSupported', field: 'dryRun', rawValue: goStringList(set), detail: 'supported values: "All"' }] };
  }
  return { dryRun: set.length > 0, errors: [] };
}

/**
 * Reads dryRun from a query (`dryRun=All`) or a body list; anything but `All` is 422 Invalid on the
 * options kind of the verb (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions).
 */
export function parseDryRun(values: unknown, optionsKind = 'DeleteOptions'): boolean {
  const { dryRun, errors } = dryRunErrors(values);
  if (errors.length > 0) throw invalid('meta.k8s.io', optionsKind, '', errors);
  return dryRun;
}

/**
 * Merges DeleteOptions from the body (JSON) and the query; the body wins where both say something,
 * as the real server decodes the body over the query-derived defaults.
 */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, context: DeleteOptionsContext = {}): DeleteOptions {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  // A body field of the wrong JSON type never decodes upstream: 400 with the decoder's words, before
  // anything is deleted (`preconditions: []`, `preconditions.uid: 5`).
  const typeError = body && typeof body === 'object' && !Array.isArray(body) ? findTypeError(messageSchema(DELETE_OPTIONS), b) : undefined;
  if (typeError) throw badRequest(goNamedTypes(typeError));
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') {
    throw badRequest(`expected DeleteOptions, got ${String(b.kind)}`);
  }
  const { dryRun, errors: errs } = dryRunErrors(b.dryRun ?? query.getAll('dryRun'));

  let grace: number | undefined;
  const graceRaw = b.gracePeriodSeconds ?? undefined;
  if (graceRaw !== undefined && graceRaw !== null) {
    grace = Number(graceRaw);
    if (!Number.isInteger(grace)) throw badRequest(`invalid value for gracePeriodSeconds: "${String(graceRaw)}"`);
  } else {
    grace = parseQueryInt64(query.get('gracePeriodSeconds'));
  }

  const policyRaw = (b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined) as string | undefined;
  let propagationPolicy: DeleteOptions['propagationPolicy'];
  if (policyRaw !== undefined && policyRaw !== null && policyRaw !== '') {
    if (!(POLICIES as readonly string[]).includes(policyRaw)) {
      errs.push({ type: 'FieldValueNotSupported', field: 'propagationPolicy', value: policyRaw, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' });
    } else {
      propagationPolicy = policyRaw as DeleteOptions['propagationPolicy'];
    }
  }
  const orphanDependents = typeof b.orphanDependents === 'boolean' ? b.orphanDependents : queryBool(query.get('orphanDependents'));
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', value: propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' });
  }

  let preconditions: DeleteOptions['preconditions'];
  if (b.preconditions !== undefined && b.preconditions !== null) {
    const p = b.preconditions as Record<string, unknown>;
    if (typeof p !== 'object') throw badRequest('preconditions must be an object');
    preconditions = {
      uid: typeof p.uid === 'string' && p.uid !== '' ? p.uid : undefined,
      resourceVersion: typeof p.resourceVersion === 'string' && p.resourceVersion !== '' ? p.resourceVersion : undefined,
    };
  }
  // Dropped without the gate, before validation, as upstream's handler drops it.
  const ignoreRaw = b.ignoreStoreReadErrorWithClusterBreakingPotential;
  const ignoreStoreReadError = !context.allowUnsafeDelete
    ? undefined
    : typeof ignoreRaw === 'boolean'
      ? ignoreRaw
      : queryBool(query.get('ignoreStoreReadErrorWithClusterBreakingPotential'));
  if (ignoreStoreReadError) {
    const set = {
      dryRun,
      propagationPolicy: policyRaw !== undefined && policyRaw !== null && policyRaw !== '',
      orphanDependents: orphanDependents !== undefined,
      gracePeriodSeconds: grace !== undefined,
      preconditions: preconditions !== undefined,
    };
    errs.push(...unsafeDeleteErrors(set));
  }
  if (errs.length > 0) throw invalid('meta.k8s.io', 'DeleteOptions', '', errs);
  return {
    dryRun,
    gracePeriodSeconds: grace,
    propagationPolicy,
    orphanDependents,
    preconditions,
    ...(ignoreStoreReadError !== undefined ? { ignoreStoreReadErrorWithClusterBreakingPotential: ignoreStoreReadError } : {}),
  };
}

/** Upstream's ValidateIgnoreStoreReadError: with the option true, the other options must stay unset. */
function unsafeDeleteErrors(set: Record<'dryRun' | 'propagationPolicy' | 'orphanDependents' | 'gracePeriodSeconds' | 'preconditions', boolean>): FieldError[] {
  const field = 'ignoreStoreReadErrorWithClusterBreakingPotential';
  const order = ['dryRun', 'propagationPolicy', 'orphanDependents', 'gracePeriodSeconds', 'preconditions'] as const;
  return order.filter((name) => set[name]).map((name): FieldError => ({ type: 'FieldValueInvalid', field, value: true, detail: `cannot be set together with .${name}` }));
}
