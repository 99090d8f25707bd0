import path from 'node:path'

/**
 * Is `candidate` the directory `root` itself or somewhere below it? A pure string test on
 * absolute paths: resolve symlinks first (resolve-real-path.ts) when the paths come from
 * outside. The rules (docs/adr/0065-path-containment-rule.md):
 * - a child whose name starts with two dots (`..cache`) is inside; `..` and `../x` are not;
 * - trailing separators and `.` segments do not matter (both sides are normalised);
 * - comparison is exact, so on Linux `/Work` is not inside `/work`;
 * - a relative path or a NUL byte on either side is never inside (fail closed).
 */
export function isInside(root: string, candidate: string): boolean {
  if (root.includes('\u0000') || candidate.includes('\u0000')) return false
  if (!path.isAbsolute(root) || !path.isAbsolute(candidate)) return false
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  // An absolute relative path means another drive (Windows): never inside.
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

/** Is `candidate` inside (or equal to) at least one of `roots`? */
export function isInsideAny(roots: readonly string[], candidate: string): boolean {
  return roots.some((root) => isInside(root, candidate))
}
