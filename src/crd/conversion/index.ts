/** Custom resource version conversion as the apiextensions apiserver does it: strategies None and Webhook. */
export { convertObject, convertObjects, ConversionError, type ConversionOptions } from './converter.ts';
export { CONVERSION_WEBHOOK_TIMEOUT_SECONDS } from './webhook.ts';
export type { UnstructuredObject } from './types.ts';
