// Place names as a list in a sentence ("the same figure for Travis County, Texas; Texas; and
// United States"): a name may hold its own comma, so a list of three or more then takes
// semicolons, where "A and B and C" had run the names together.

export function listOfNames(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' and ');
  const sep = names.some((n) => n.includes(',')) ? '; ' : ', ';
  return `${names.slice(0, -1).join(sep)}${sep}and ${names.at(-1)}`;
}
