/**
 * cel-go's optional library (the latest version, as Kubernetes enables it): optional.of, none,
 * ofNonZeroValue, value() and hasValue(). `or`, `orValue`, `optMap` and `optFlatMap` evaluate their
 * argument only when needed, so the compiler handles them; first, last and unwrap are in lists.ts.
 */
import { evalError } from '../errors.ts';
import { CelDuration, CelOptional, CelTimestamp, CelUint, isMap, type CelValue } from '../values.ts';
import { global, member, type Overload } from './overload.ts';

/** Go's zero time (0001-01-01T00:00:00Z) in nanoseconds since the Unix epoch. */
const ZERO_TIME = -62135596800n * 1_000_000_000n;

/** traits.Zeroer: the zero value of each type. */
function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === '') return true;
  if (v instanceof CelUint) return v.value === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (isMap(v)) return v.size === 0;
  if (v instanceof CelDuration) return v.nanos === 0n;
  if (v instanceof CelTimestamp) return v.nanos === ZERO_TIME;
  if (v instanceof CelOptional) return v.value === undefined;
  return false;
}

export const optionalOverloads: readonly Overload[] = [
  global('optional_of', 'optional.of', ['A'], 'optional<A>', ([v]) => CelOptional.of(v!)),
  global('optional_ofNonZeroValue', 'optional.ofNonZeroValue', ['A'], 'optional<A>', ([v]) => (isZero(v!) ? CelOptional.NONE : CelOptional.of(v!))),
  global('optional_none', 'optional.none', [], 'optional<T>', () => CelOptional.NONE),
  member('optional_value', 'value', ['optional<A>'], 'A', ([o]) => {
    const v = (o as CelOptional).value;
    if (v === undefined) throw evalError('optional.none() dereference');
    return v;
  }),
  member('optional_hasValue', 'hasValue', ['optional<A>'], 'bool', ([o]) => (o as CelOptional).value !== undefined),
];
