/** A value built on first use and kept: documents that depend only on the served kinds. */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
