import type { Migration } from 'kysely';
import * as coreTables from './0001-core-tables.ts';
import * as writeFunction from './0002-write-function.ts';
import * as inspectionViews from './0003-inspection-views.ts';
import * as rowsWrittenOutside from './0004-rows-written-outside.ts';
import * as leanWriteFunction from './0005-lean-write-function.ts';

/** Every migration this build knows, by name; names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '0001-core-tables': coreTables,
  '0002-write-function': writeFunction,
  '0003-inspection-views': inspectionViews,
  '0004-rows-written-outside': rowsWrittenOutside,
  '0005-lean-write-function': leanWriteFunction,
};
