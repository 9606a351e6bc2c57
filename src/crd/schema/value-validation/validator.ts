/**
 * OpenAPI value validation of custom resources as kube-apiserver runs it: kube-openapi's
 * SchemaValidator (pkg/validation/validate) over the CRD schema, its results turned into field
 * errors by apiextensions' ValidateCustomResource, and, on updates, CRDValidationRatcheting (GA
 * since 1.33): errors inside parts of the object the update left unchanged are dropped.
 *
 * Faithful to the validator's own rules, quirks included:
 * - messages read `spec.replicas in body must be of type integer: "string"`, with kube-openapi's
 *   paths (`spec.list[0].name`; keys under additionalProperties appended with a dot);
 * - integers are Go int64 and other numbers float64: `maximum: 5.5` bounds an integer at 5, a
 *   float that is a JSON integer passes `type: integer`, an integer never matches `multipleOf: 0.5`;
 * - `null` passes only nullable (or untyped) schemas and never an enum;
 * - anyOf/oneOf report the errors of the branch that got furthest (kube-openapi's match counts);
 * - errors are de-duplicated by text, in the order the validator finds them.
 *
 * A fast verdict-only pass runs first; the full pass (messages, match counts, ratcheting) only
 * runs for objects that fail it.
 */
import type { FieldError } from '../../../api/errors.ts';
import { goFloat, goNumber, isGoInt } from '../../../api/go/number.ts';
import { goQuote } from '../../../api/go/quote.ts';
import { goJson, goValue } from '../../../api/go/values.ts';
import * as field from '../../../registry/validation/field.ts';
import type { PathLike } from '../../../registry/validation/field.ts';
import type { Structural } from '../structural.ts';
import { CorrelatedObject } from '../correlation.ts';
import { deepEqualJson, isJsonObject } from '../json.ts';
import { rootPath } from '../field-errors.ts';
import { compileSchema, type CompiledSchema, type ValidatorFlavour } from './compile.ts';
import { runeCount } from '../../../api/go/strings.ts';

const enum Code {
  Composite,
  InvalidType,
  Required,
  TooLong,
  TooShort,
  Pattern,
  Enum,
  MultipleOf,
  Max,
  Min,
  Unique,
  MaxItems,
  MinItems,
  TooFewProperties,
  TooManyProperties,
  UnallowedProperty,
  MultipleOfMustBePositive,
}

/** One kube-openapi error: a *errors.Validation, or a composite (anyOf …) error. */
interface OpenAPIError {
  readonly code: Code;
  readonly message: string;
  /** The validation's Name (a path); composite errors have none. */
  readonly name?: string;
  readonly value?: unknown;
  /** The limit (maxLength, maxItems, maxProperties). */
  readonly valid?: number;
  readonly values?: readonly unknown[];
}

const enum Seg {
  /** A property: `name`, or `.name` below the root. */
  Property,
  /** An additionalProperties key: always `.key`. */
  Additional,
  /** `[i]`. */
  Index,
}

/** The kind of a decoded JSON value, as Go's reflection tells them. */
const enum Kind {
  Null,
  String,
  Int,
  Float,
  Bool,
  Array,
  Object,
}

function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'string':
      return Kind.String;
    case 'number':
      return isGoInt(v) ? Kind.Int : Kind.Float;
    case 'boolean':
      return Kind.Bool;
    default:
      if (v === null || v === undefined) return Kind.Null;
      return Array.isArray(v) ? Kind.Array : Kind.Object;
  }
}

const SCH_TYPE = ['', 'string', 'integer', 'number', 'boolean', 'array', 'object'] as const;
const SCH_FORMAT = ['', '', 'int64', 'float64', '', '', ''] as const;

const MAX_JSON_FLOAT = 2 ** 53 - 1;

/** go-openapi's swag.IsFloat64AJSONInteger (v0.23). */
export function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || f < -MAX_JSON_FLOAT || f > MAX_JSON_FLOAT) return false;
  if (Number.isInteger(f)) return true;
  // Go converts a negative float to uint64 with wrap-around: nothing is close to it.
  if (f < 0) return false;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / (f + g) < 1e-9;
}

/** Go's string(rune(n)) for an int64 converted to a string type. */
function runeString(n: number): string {
  if (n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(n);
}

/**
 * basicCommonValidator's enum test: a value matches an entry it converts to with Go's conversion
 * rules (a float truncates to an int entry, an int becomes the rune of a string entry); `null`
 * entries never match, and `null` matches nothing.
 */
function enumMatches(data: unknown, kind: Kind, entry: unknown): boolean {
  if (entry === null || entry === undefined || kind === Kind.Null) return false;
  switch (typeof entry) {
    case 'string':
      if (kind === Kind.String) return data === entry;
      return kind === Kind.Int && runeString(data as number) === entry;
    case 'number':
      if (kind === Kind.Int || kind === Kind.Float) {
        const n = data as number;
        return isGoInt(entry) ? Math.trunc(n) === entry : n === entry;
      }
      return false;
    case 'boolean':
      return data === entry;
    default:
      if (Array.isArray(entry)) return kind === Kind.Array && deepEqualJson(data, entry);
      return kind === Kind.Object && deepEqualJson(data, entry);
  }
}

function hasType(s: CompiledSchema, t: string): boolean {
  return s.types.includes(t);
}

// ---------------------------------------------------------------------------------------------
// The verdict-only pass: does the value validate? (Exactly the error conditions of the full pass.)

function isValid(s: CompiledSchema, data: unknown): boolean {
  const kind = kindOf(data);
  if (kind === Kind.Null) {
    if (s.types.length > 0 && !hasType(s, 'null') && !s.nullable) return false;
    return s.enum === undefined;
  }
  if ((s.types.length > 0 || s.format !== '') && !typeOk(s, data, kind)) return false;
  if (!junctorsOk(s, data)) return false;
  if (kind === Kind.String) {
    const str = data as string;
    if (s.maxLength !== undefined || s.minLength !== undefined) {
      const n = runeCount(str);
      if (s.maxLength !== undefined && n > s.maxLength) return false;
      if (s.minLength !== undefined && n < s.minLength) return false;
    }
    if (s.pattern !== '' && (s.patternError !== undefined || !s.patternRe!.test(str))) return false;
    if (s.formatCheck && !s.formatCheck(str)) return false;
  } else if (kind === Kind.Int || kind === Kind.Float) {
    if (numberProblems(s, data as number, kind === Kind.Int) !== 0) return false;
  } else if (kind === Kind.Array) {
    const arr = data as unknown[];
    if (s.items) for (let i = 0; i < arr.length; i++) if (!isValid(s.items, arr[i])) return false;
    if (s.minItems !== undefined && arr.length < s.minItems) return false;
    if (s.maxItems !== undefined && arr.length > s.maxItems) return false;
    if (s.uniqueItems && hasDuplicates(arr)) return false;
  }
  if (s.enum !== undefined && !enumHas(s.enum, data, kind)) return false;
  if (kind === Kind.Object) return objectValid(s, data as Record<string, unknown>);
  return true;
}

function enumHas(entries: readonly unknown[], data: unknown, kind: Kind): boolean {
  for (let i = 0; i < entries.length; i++) if (enumMatches(data, kind, entries[i])) return true;
  return false;
}

function typeOk(s: CompiledSchema, data: unknown, kind: Kind): boolean {
  const schType = SCH_TYPE[kind];
  const isFloatInt = kind === Kind.Float && hasType(s, 'integer') && isFloat64AJSONInteger(data as number);
  const isIntFloat = kind === Kind.Int && hasType(s, 'number');
  const stringOrSlice = kind === Kind.String || kind === Kind.Array;
  if (!stringOrSlice && s.format !== '' && !(hasType(s, schType) || SCH_FORMAT[kind] === s.format || isFloatInt || isIntFloat)) return false;
  if (!(hasType(s, 'number') || hasType(s, 'integer')) && s.format !== '' && stringOrSlice) return true;
  return hasType(s, schType) || isFloatInt || isIntFloat;
}

function junctorsOk(s: CompiledSchema, data: unknown): boolean {
  if (s.anyOf) {
    let any = false;
    for (let i = 0; i < s.anyOf.length && !any; i++) any = isValid(s.anyOf[i]!, data);
    if (!any) return false;
  }
  if (s.oneOf) {
    let n = 0;
    for (let i = 0; i < s.oneOf.length; i++) if (isValid(s.oneOf[i]!, data)) n++;
    if (n !== 1) return false;
  }
  if (s.allOf) for (let i = 0; i < s.allOf.length; i++) if (!isValid(s.allOf[i]!, data)) return false;
  if (s.not && isValid(s.not, data)) return false;
  return true;
}

function objectValid(s: CompiledSchema, obj: Record<string, unknown>): boolean {
  const keys = Object.keys(obj);
  if (s.minProperties !== undefined && keys.length < s.minProperties) return false;
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) return false;
  const props = s.properties;
  const ap = s.additionalProperties;
  for (const k of keys) {
    const prop = props ? props[k] : undefined;
    if (prop) {
      if (!isValid(prop, obj[k])) return false;
    } else if (ap) {
      if (!ap.allows) return false;
      if (ap.schema && !isValid(ap.schema, obj[k])) return false;
    }
  }
  if (s.required) for (const k of s.required) if (!Object.hasOwn(obj, k)) return false;
  return true;
}

function hasDuplicates(arr: readonly unknown[]): boolean {
  for (let i = 1; i < arr.length; i++) for (let j = 0; j < i; j++) if (deepEqualJson(arr[i], arr[j])) return true;
  return false;
}

/** Bit flags of the failing number checks: 1 multipleOf (2 not positive), 4 minimum, 8 maximum. */
function numberProblems(s: CompiledSchema, n: number, isInt: boolean): number {
  let out = 0;
  if (s.multipleOf !== undefined) {
    if (isInt) {
      const f = Math.trunc(s.multipleOf);
      if (f <= 0) out |= 2;
      else if (BigInt(n) % BigInt(f) !== 0n) out |= 1;
    } else {
      const f = s.multipleOf;
      if (f <= 0) out |= 2;
      else if (!isFloat64AJSONInteger(f < 1 ? (1 / f) * n : n / f)) out |= 1;
    }
  }
  if (s.minimum !== undefined) {
    const min = isInt ? Math.trunc(s.minimum) : s.minimum;
    if (s.exclusiveMinimum ? n <= min : n < min) out |= 4;
  }
  if (s.maximum !== undefined) {
    const max = isInt ? Math.trunc(s.maximum) : s.maximum;
    if (s.exclusiveMaximum ? n >= max : n > max) out |= 8;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The full pass: kube-openapi's errors and match counts.

class Walk {
  errors: OpenAPIError[] = [];
  private readonly segKinds: Seg[] = [];
  private readonly segKeys: (string | number)[] = [];

  path(): string {
    let s = '';
    for (let i = 0; i < this.segKinds.length; i++) {
      const k = this.segKeys[i]!;
      switch (this.segKinds[i]) {
        case Seg.Property:
          s = s === '' ? (k as string) : `${s}.${k}`;
          break;
        case Seg.Additional:
          s = `${s}.${k}`;
          break;
        case Seg.Index:
          s = `${s}[${k}]`;
          break;
      }
    }
    return s;
  }

  private atRoot(): boolean {
    return this.segKinds.length === 0;
  }

  private push(kind: Seg, key: string | number): void {
    this.segKinds.push(kind);
    this.segKeys.push(key);
  }

  private pop(): void {
    this.segKinds.pop();
    this.segKeys.pop();
  }

  add(e: OpenAPIError): void {
    for (const seen of this.errors) if (seen.message === e.message) return;
    this.errors.push(e);
  }

  /** A validator for a field or item: ratcheting when its old value pairs with the new one. */
  child(s: CompiledSchema, data: unknown, corr: CorrelatedObject | undefined): number {
    if (!corr) return this.validate(s, data, undefined);
    const mark = this.errors.length;
    const mc = this.validate(s, data, corr);
    if (this.errors.length > mark && corr.unchanged()) this.errors.length = mark;
    return mc;
  }

  /** SchemaValidator.Validate: the match count; errors go to this.errors. */
  validate(s: CompiledSchema, data: unknown, corr: CorrelatedObject | undefined): number {
    const kind = kindOf(data);
    if (kind === Kind.Null) {
      let mc = 1;
      if (s.types.length > 0 && !hasType(s, 'null') && !s.nullable) {
        this.invalidType(s.types.join(','), 'null');
        mc = 0;
      }
      if (s.enum !== undefined) this.enumFail(data, s.enum);
      return mc;
    }
    let mc = 0;
    if (s.types.length > 0 || s.format !== '') mc += this.typeCheck(s, data, kind) + 1;
    mc += this.junctors(s, data) + 1;
    if (kind === Kind.String) {
      this.stringChecks(s, data as string);
      mc += 1;
      if (s.formatCheck) {
        if (!s.formatCheck(data as string)) this.invalidType(s.format, data as string);
        mc += 1;
      }
    }
    if (kind === Kind.Int || kind === Kind.Float) {
      this.numberChecks(s, data as number, kind === Kind.Int);
      mc += 2;
    }
    // The slice validator counts itself once, and the walk once more.
    if (kind === Kind.Array) mc += this.sliceChecks(s, data as unknown[], corr) + 2;
    if (s.enum !== undefined && !enumHas(s.enum, data, kind)) this.enumFail(data, s.enum);
    mc += 1;
    if (kind === Kind.Object) mc += this.objectChecks(s, data as Record<string, unknown>, corr) + 1;
    return mc + 1;
  }

  private typeCheck(s: CompiledSchema, data: unknown, kind: Kind): number {
    const schType = SCH_TYPE[kind];
    const format = SCH_FORMAT[kind];
    const isFloatInt = kind === Kind.Float && hasType(s, 'integer') && isFloat64AJSONInteger(data as number);
    const isIntFloat = kind === Kind.Int && hasType(s, 'number');
    const stringOrSlice = kind === Kind.String || kind === Kind.Array;
    if (!stringOrSlice && s.format !== '' && !(hasType(s, schType) || format === s.format || isFloatInt || isIntFloat)) {
      this.invalidType(s.format, format);
      return 0;
    }
    if (!(hasType(s, 'number') || hasType(s, 'integer')) && s.format !== '' && stringOrSlice) return 1;
    if (!(hasType(s, schType) || isFloatInt || isIntFloat)) {
      this.invalidType(s.types.join(','), schType);
      return 0;
    }
    return 1;
  }

  /** A junctor branch on its own: its errors and match count. */
  private branch(s: CompiledSchema, data: unknown): { errors: OpenAPIError[]; mc: number } {
    const saved = this.errors;
    this.errors = [];
    const mc = this.validate(s, data, undefined);
    const errors = this.errors;
    this.errors = saved;
    return { errors, mc };
  }

  private merge(r: { errors: OpenAPIError[]; mc: number }): number {
    for (const e of r.errors) this.add(e);
    return r.mc;
  }

  private composite(message: string): void {
    this.add({ code: Code.Composite, message });
  }

  private junctors(s: CompiledSchema, data: unknown): number {
    let mc = 0;
    if (s.anyOf) {
      let best: { errors: OpenAPIError[]; mc: number } | undefined;
      let success: { errors: OpenAPIError[]; mc: number } | undefined;
      for (const b of s.anyOf) {
        const r = this.branch(b, data);
        if (r.errors.length === 0) {
          best = undefined;
          success = r;
          break;
        }
        if (!best || r.mc > best.mc) best = r;
      }
      if (!success) this.composite(`${goQuote(this.path())} must validate at least one schema (anyOf)`);
      if (best) mc += this.merge(best);
      else if (success) mc += success.mc;
    }
    if (s.oneOf) {
      let best: { errors: OpenAPIError[]; mc: number } | undefined;
      let success: { errors: OpenAPIError[]; mc: number } | undefined;
      let validated = 0;
      for (const b of s.oneOf) {
        const r = this.branch(b, data);
        if (r.errors.length === 0) {
          validated++;
          best = undefined;
          success ??= r;
          continue;
        }
        if (validated === 0 && (!best || r.mc > best.mc)) best = r;
      }
      if (validated !== 1) {
        const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
        this.composite(`${goQuote(this.path())} must validate one and only one schema (oneOf). ${more}`);
        if (best) mc += this.merge(best);
      } else if (success) {
        mc += success.mc;
      }
    }
    if (s.allOf) {
      let validated = 0;
      for (const b of s.allOf) {
        const r = this.branch(b, data);
        if (r.errors.length === 0) validated++;
        mc += this.merge(r);
      }
      if (validated !== s.allOf.length) {
        this.composite(`${goQuote(this.path())} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`);
      }
    }
    if (s.not) {
      const r = this.branch(s.not, data);
      if (r.errors.length === 0) this.composite(`${goQuote(this.path())} must not validate the schema (not)`);
    }
    return mc;
  }

  private stringChecks(s: CompiledSchema, str: string): void {
    const path = () => this.path();
    if (s.maxLength !== undefined || s.minLength !== undefined) {
      const n = runeCount(str);
      if (s.maxLength !== undefined && n > s.maxLength) {
        this.add({ code: Code.TooLong, name: path(), value: str, valid: s.maxLength, message: `${path()} in body should be at most ${s.maxLength} chars long` });
        return;
      }
      if (s.minLength !== undefined && n < s.minLength) {
        this.add({ code: Code.TooShort, name: path(), value: str, valid: s.minLength, message: `${path()} in body should be at least ${s.minLength} chars long` });
        return;
      }
    }
    if (s.pattern !== '') {
      const pattern = s.patternError !== undefined ? `${s.pattern}, but pattern is invalid: ${s.patternError}` : s.pattern;
      if (s.patternError !== undefined || !s.patternRe!.test(str)) {
        this.add({ code: Code.Pattern, name: path(), value: str, message: `${path()} in body should match '${pattern}'` });
      }
    }
  }

  private numberChecks(s: CompiledSchema, n: number, isInt: boolean): void {
    const problems = numberProblems(s, n, isInt);
    if (problems === 0) return;
    const path = this.path();
    // Integers compare with int64 bounds (%d), floats with float64 ones (%v).
    const num = (x: number) => (isInt ? String(Math.trunc(x)) : goFloat(x));
    if (problems & 2) {
      const f = isInt ? Math.trunc(s.multipleOf!) : s.multipleOf!;
      this.add({ code: Code.MultipleOfMustBePositive, name: path, value: f, message: `factor MultipleOf declared for ${path} must be positive: ${isInt ? String(f) : goFloat(f)}` });
    } else if (problems & 1) {
      this.add({ code: Code.MultipleOf, name: path, value: n, message: `${path} in body should be a multiple of ${num(s.multipleOf!)}` });
    }
    if (problems & 4) {
      const relation = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      this.add({ code: Code.Min, name: path, value: n, message: `${path} in body should be ${relation} ${num(s.minimum!)}` });
    }
    if (problems & 8) {
      const relation = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      this.add({ code: Code.Max, name: path, value: n, message: `${path} in body should be ${relation} ${num(s.maximum!)}` });
    }
  }

  private sliceChecks(s: CompiledSchema, arr: unknown[], corr: CorrelatedObject | undefined): number {
    let mc = 0;
    if (s.items) {
      for (let i = 0; i < arr.length; i++) {
        this.push(Seg.Index, i);
        mc += this.child(s.items, arr[i], corr?.index(i));
        this.pop();
      }
    }
    const size = arr.length;
    if (s.minItems !== undefined && size < s.minItems) {
      const path = this.path();
      this.add({ code: Code.MinItems, name: path, value: size, valid: s.minItems, message: `${path} in body should have at least ${s.minItems} items` });
    }
    if (s.maxItems !== undefined && size > s.maxItems) {
      const path = this.path();
      this.add({ code: Code.MaxItems, name: path, value: size, valid: s.maxItems, message: `${path} in body should have at most ${s.maxItems} items` });
    }
    if (s.uniqueItems && hasDuplicates(arr)) {
      const path = this.path();
      this.add({ code: Code.Unique, name: path, message: `${path} in body shouldn't contain duplicates` });
    }
    return mc;
  }

  /** The pairing of a field for ratcheting (decided before the key is pushed); the root's apiVersion and kind never ratchet. */
  private fieldCorrelation(corr: CorrelatedObject | undefined, k: string): CorrelatedObject | undefined {
    if (!corr) return undefined;
    if (this.atRoot() && (k === 'kind' || k === 'apiVersion')) return undefined;
    return corr.key(k);
  }

  private objectChecks(s: CompiledSchema, obj: Record<string, unknown>, corr: CorrelatedObject | undefined): number {
    const keys = Object.keys(obj);
    const n = keys.length;
    if (s.minProperties !== undefined && n < s.minProperties) {
      const path = this.path();
      this.add({ code: Code.TooFewProperties, name: path, value: n, valid: s.minProperties, message: `${path} in body should have at least ${s.minProperties} properties` });
    }
    if (s.maxProperties !== undefined && n > s.maxProperties) {
      const path = this.path();
      this.add({ code: Code.TooManyProperties, name: path, value: n, valid: s.maxProperties, message: `${path} in body should have at most ${s.maxProperties} properties` });
    }
    let mc = 0;
    const props = s.properties;
    const ap = s.additionalProperties;
    if (ap && !ap.allows) {
      for (const k of keys) {
        if (props && props[k]) continue;
        const path = this.path();
        this.add({ code: Code.UnallowedProperty, name: path, value: k, message: `${path}.${k} in body is a forbidden property` });
      }
    } else if (ap && ap.schema) {
      for (const k of keys) {
        if (props && props[k]) continue;
        const corrK = this.fieldCorrelation(corr, k);
        this.push(Seg.Additional, k);
        mc += this.child(ap.schema, obj[k], corrK);
        this.pop();
      }
    }
    if (props) {
      for (const k of s.propertyNames) {
        if (!Object.hasOwn(obj, k)) continue;
        const corrK = this.fieldCorrelation(corr, k);
        this.push(Seg.Property, k);
        mc += this.child(props[k]!, obj[k], corrK);
        this.pop();
      }
    }
    if (s.required) {
      for (const k of s.required) {
        if (Object.hasOwn(obj, k)) continue;
        const name = `${this.path()}.${k}`;
        this.add({ code: Code.Required, name, message: `${name} in body is required` });
      }
    }
    return mc;
  }

  private invalidType(typeName: string, value: string): void {
    const path = this.path();
    this.add({ code: Code.InvalidType, name: path, value, message: `${path} in body must be of type ${typeName}: ${goQuote(value)}` });
  }

  private enumFail(data: unknown, values: readonly unknown[]): void {
    const path = this.path();
    this.add({ code: Code.Enum, name: path, value: data, values, message: `${path} in body should be one of ${goValue(values)}` });
  }
}

/** The value of a field error as Go prints it (%v of an int64 or float64, else as usual). */
function badValue(v: unknown): Pick<FieldError, 'value' | 'rawValue'> {
  if (typeof v === 'number' && !isGoInt(v)) return { value: v, rawValue: goNumber(v) };
  return { value: v === undefined || v === null ? '' : v };
}

/** What a nil field.Path prints: errors about the validated value itself when no root path is given. */
const NIL_PATH = '<nil>';

/** apiextensions' kubeOpenAPIResultToFieldErrors. */
function toFieldErrors(errors: readonly OpenAPIError[], root: PathLike | undefined): FieldError[] {
  const base = rootPath(root);
  const isNil = String(base) === '';
  const nilOr = (e: FieldError): FieldError => (isNil && e.field === '' ? { ...e, field: NIL_PATH } : e);
  return errors.map((e): FieldError => nilOr(convert(e)));

  function convert(e: OpenAPIError): FieldError {
    if (e.code === Code.Composite) return field.invalid(base, '', e.message);
    const name = e.name ?? '';
    const at = name !== '' && name !== '.' ? base.child(name.startsWith('.') ? name.slice(1) : name) : base;
    switch (e.code) {
      case Code.Required:
        return field.required(at);
      case Code.Enum:
        return { ...field.notSupported(at, e.value ?? null, (e.values ?? []).map((v) => (typeof v === 'string' ? v : goJson(v)))), ...(typeof e.value === 'number' && !isGoInt(e.value) ? { rawValue: goNumber(e.value) } : {}) };
      case Code.TooLong:
        return field.tooLong(at, e.valid ?? -1);
      case Code.MaxItems:
      case Code.TooManyProperties:
        return field.tooMany(at, typeof e.value === 'number' ? e.value : -1, e.valid ?? -1);
      case Code.InvalidType:
        return { type: 'FieldValueTypeInvalid', field: String(at), ...badValue(e.value), detail: e.message };
      default:
        return { type: 'FieldValueInvalid', field: String(at), ...badValue(e.value), detail: e.message };
    }
  }
}

export interface ValueValidatorOptions {
  /** See compile.ts: `customResource` (default) validates objects, `structural` validates defaults. */
  flavour?: ValidatorFlavour;
}

export interface ValidateOptions {
  /** The path of the validated value (`status` for the status subresource); the root by default. */
  root?: PathLike;
  /** The value before an update: errors in parts left unchanged are ratcheted away. */
  old?: unknown;
}

/**
 * A compiled validator for one schema: build once per CRD version (see validatorFor), validate
 * every write.
 */
export class ValueValidator {
  private readonly compiled: CompiledSchema;

  constructor(
    readonly schema: Structural,
    opts: ValueValidatorOptions = {},
  ) {
    this.compiled = compileSchema(schema, opts.flavour ?? 'customResource');
  }

  /** The field errors of `value` (none when valid). */
  validate(value: unknown, opts: ValidateOptions = {}): FieldError[] {
    if (isValid(this.compiled, value)) return [];
    const walk = new Walk();
    const ratcheting = opts.old !== undefined && opts.old !== null;
    const corr = ratcheting ? new CorrelatedObject(value, opts.old, this.schema) : undefined;
    walk.child(this.compiled, value, corr);
    return toFieldErrors(walk.errors, opts.root);
  }

  /** Whether `value` validates (no messages built). */
  isValid(value: unknown): boolean {
    return isValid(this.compiled, value);
  }
}

const cache = { customResource: new WeakMap<Structural, ValueValidator>(), structural: new WeakMap<Structural, ValueValidator>() };

/** The validator of a schema, compiled on first use and kept as long as the schema lives. */
export function validatorFor(s: Structural, flavour: ValidatorFlavour = 'customResource'): ValueValidator {
  let v = cache[flavour].get(s);
  if (!v) {
    v = new ValueValidator(s, { flavour });
    cache[flavour].set(s, v);
  }
  return v;
}

/**
 * OpenAPI value validation of `obj` against `s`, as kube-apiserver validates custom resources
 * (ValidateCustomResource; with `old`, ValidateCustomResourceUpdate with ratcheting).
 *
 * @example
 * validateValue({ spec: { replicas: 'x' } }, s)
 * // [{ type: 'FieldValueTypeInvalid', field: 'spec.replicas', value: 'string',
 * //    detail: 'spec.replicas in body must be of type integer: "string"' }]
 */
export function validateValue(obj: unknown, s: Structural | ValueValidator, opts: ValidateOptions & ValueValidatorOptions = {}): FieldError[] {
  const validator = s instanceof ValueValidator ? s : validatorFor(s, opts.flavour);
  return validator.validate(obj, opts);
}
