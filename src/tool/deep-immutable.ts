/** Read-only all the way down: permission state can only change through context modifiers. */
export type DeepImmutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepImmutable<K>, DeepImmutable<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepImmutable<V>>
      : T extends ReadonlyArray<infer V>
        ? ReadonlyArray<DeepImmutable<V>>
        : T extends object
          ? { readonly [K in keyof T]: DeepImmutable<T[K]> }
          : T

/** Freezes an object graph of plain objects and arrays (Maps and Sets are not used in state). */
export function deepFreeze<T>(value: T): DeepImmutable<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value as object)) deepFreeze(child)
  }
  return value as DeepImmutable<T>
}
