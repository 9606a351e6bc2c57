/**
 * Which parts of a schema pair a value with its old value on update (upstream's MapIsCorrelatable
 * and the list-type rule of validation.go): what transition rules may be written on, and where
 * they see an `oldSelf`.
 */
import type { Structural } from '../schema/structural.ts';

/** Granular (the default) and atomic maps pair old and new values by key; an unknown type does not. */
export function mapIsCorrelatable(mapType: string | undefined): boolean {
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
}

/** Only map lists pair their items with old ones (by key); sets and atomic lists pair none. */
export function listCorrelatesItems(list: Structural): boolean {
  return list.xListType === 'map';
}
