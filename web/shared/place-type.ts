// A geography type in words, for text a reader sees or hears (issue 37 §8: keys and codes are
// not words): "Found Austin-Round Rock-San Marcos, TX, a metro area", not "(metro:12420)".

const WORDS: Record<string, string> = {
  nation: 'nation',
  state: 'state',
  county: 'county',
  metro: 'metro area',
  cd: 'congressional district',
  tract: 'census tract',
  block_group: 'block group',
};

/** The type of `keyOrType` (`metro:12420` or `metro`) in words; an unknown type as it is. */
export function placeTypeWords(keyOrType: string): string {
  const type = keyOrType.includes(':') ? keyOrType.slice(0, keyOrType.indexOf(':')) : keyOrType;
  return WORDS[type] ?? type;
}

/** The words with their indefinite article: "a county", "an …" before a vowel. */
export function withArticle(words: string): string {
  return `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;
}
