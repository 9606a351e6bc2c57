export { customResourceTableConvertor, servedPrinterColumns, cellForJsonValue, CREATION_TIMESTAMP_DESCRIPTION, type CustomResourceTableConvertor } from './convertor.ts';
export { parseJsonPath, findResults, printResult, JsonPathError, type PathTemplate } from './jsonpath.ts';
