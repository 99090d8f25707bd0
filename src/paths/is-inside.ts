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
  // Real paths (realpath(3), the kernel's names) are already normal: a prefix test gives
  // path.relative's answer without its two resolves (docs/adr/0524-normal-paths-compare-as-strings.md).
  if (isNormal(root) && isNormal(candidate)) {
    return candidate === root || root === '/' || candidate.startsWith(`${root}/`)
  }
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  // An absolute relative path means another drive (Windows): never inside.
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

/**
 * An absolute POSIX path path.resolve would leave as it is: no empty, `.` or `..` component and no
 * trailing separator (but `/` itself).
 */
function isNormal(absolute: string): boolean {
  if (path.sep !== '/' || !absolute.startsWith('/')) return false
  if (absolute === '/') return true
  return (
    !absolute.endsWith('/') &&
    !absolute.endsWith('/.') &&
    !absolute.endsWith('/..') &&
    !absolute.includes('//') &&
    !absolute.includes('/./') &&
    !absolute.includes('/../')
  )
}

/** Is `candidate` inside (or equal to) at least one of `roots`? */
export function isInsideAny(roots: readonly string[], candidate: string): boolean {
  return roots.some((root) => isInside(root, candidate))
}
