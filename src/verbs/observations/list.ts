/** Split `a,b` or repeated parameters into a clean, de-duplicated list. */
export function splitList(value: string | readonly string[] | undefined, sep: RegExp = /,/): string[] {
  const parts = (typeof value === 'string' ? [value] : (value ?? []))
    .flatMap((v) => v.split(sep))
    .map((s) => s.trim())
    .filter(Boolean);
  return [...new Set(parts)];
}
