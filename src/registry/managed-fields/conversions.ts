/**
 * The versions of a kind as its field manager sees them, and the bridge from conversions that wait (a
 * CRD's conversion webhook) to structured-merge-diff's synchronous Updater.
 *
 * The Updater asks for each conversion as it goes (upstream's merge.Updater converts the live and new
 * objects to each manager's version, and the objects of pruning to the versions of the appliers'
 * sets). `runConverting` runs the synchronous field manager with a converter that answers from the
 * conversions done so far; a conversion not done yet stops the run (ConversionPending), is done, and
 * the run starts again from the same inputs. A run is deterministic, so each rerun gets one step
 * further, and kinds whose managers all recorded the request's version never convert at all.
 */
import { ConversionPending, type VersionConverter } from '../../ssa/version-converter.ts';
import type { JsonValue } from '../../ssa/fieldpath/index.ts';
import type { ObjectSchema } from '../../schema/type-schema.ts';
import type { JsonObject } from './object-meta.ts';

/** The other versions of a kind (a custom resource's): their schemas, and conversion to them. */
export interface KindVersions {
  /** The schema of `apiVersion` (`group/version`); undefined when the kind has no such version. */
  schemaOf(apiVersion: string): ObjectSchema | undefined;
  /** `obj` (an object of some version of the kind, naming it in apiVersion) converted to `apiVersion`. */
  convert(obj: JsonObject, apiVersion: string): Promise<JsonObject>;
}

/**
 * Enough for any one request: a live and a new object per other version, and the objects of pruning.
 * A run that asks for more than this keeps asking for new conversions, which is a bug.
 */
const MAX_CONVERSIONS = 64;

/**
 * `run(converter)` until it no longer waits on a conversion: the converter answers conversions done
 * in earlier runs, and a failed conversion is thrown again at the same place in the next run.
 */
export async function runConverting<T>(versions: KindVersions, run: (converter: VersionConverter) => T): Promise<T> {
  const done = new Map<string, { value: JsonValue } | { error: unknown }>();
  const keyOf = (value: JsonValue, apiVersion: string) => `${apiVersion}\u0000${JSON.stringify(value)}`;
  const converter: VersionConverter = {
    schemaOf: (apiVersion) => versions.schemaOf(apiVersion),
    convert(value, apiVersion) {
      const found = done.get(keyOf(value, apiVersion));
      if (!found) throw new ConversionPending(value, apiVersion);
      if ('error' in found) throw found.error;
      return found.value;
    },
  };
  for (;;) {
    try {
      return run(converter);
    } catch (err) {
      if (!(err instanceof ConversionPending)) throw err;
      if (done.size >= MAX_CONVERSIONS) throw new Error(`field manager asked for more than ${MAX_CONVERSIONS} conversions`);
      const key = keyOf(err.value, err.apiVersion);
      try {
        done.set(key, { value: (await versions.convert(err.value as JsonObject, err.apiVersion)) as JsonValue });
      } catch (error) {
        done.set(key, { error });
      }
    }
  }
}
