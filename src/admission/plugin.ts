import type { AdmissionAttributes, AdmissionOperation } from './attributes.ts';

/**
 * An admission plugin. A mutating one (`admit`) may change `attributes.object`; a validating one
 * (`validate`) only judges. Either refuses a request by throwing an ApiError (usually 403 Forbidden).
 * The chain calls a plugin only for the operations it `handles`.
 */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  admit?(attributes: AdmissionAttributes): void | Promise<void>;
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

/** `handles` for a fixed set of operations. */
export function handlesOperations(...operations: AdmissionOperation[]): (operation: AdmissionOperation) => boolean {
  const set = new Set(operations);
  return (operation) => set.has(operation);
}
