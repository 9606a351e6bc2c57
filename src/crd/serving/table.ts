/**
 * The Table of a custom resource version: its additionalPrinterColumns (or the default Age column)
 * through src/crd/tables, as the kind's own TableConvertor.
 */
import type { TableConvertor } from '../../registry/kind.ts';
import { customResourceTableConvertor, servedPrinterColumns } from '../tables/index.ts';
import type { CrdVersion } from '../validation/types.ts';

export function customResourceTable(version: CrdVersion): TableConvertor {
  // A column whose path does not parse ends the columns (upstream logs it and serves the ones before).
  return customResourceTableConvertor(servedPrinterColumns(version.additionalPrinterColumns)).convertor;
}
