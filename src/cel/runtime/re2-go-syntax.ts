/**
 * Where re2js's parser (a port of RE2/J's, itself a port of Go's regexp/syntax) and Go 1.24's —
 * the toolchain Kubernetes 1.34 is built with — disagree, and how a pattern is adjusted before
 * re2js sees it, so that what Go accepts is accepted and what Go refuses is refused with Go's text:
 *
 * - `\p{Name}`: re2js also knows Unicode 16/17 scripts, binary properties (`\p{Emoji}`) and the
 *   names Go only added in 1.25 (`\p{Cn}`, `\p{LC}`, `\p{Assigned}`). Go 1.24 knows Unicode
 *   15.0's categories and scripts and `Any`. The first name Go does not know is spoiled
 *   (`\p{Name}` → `\p{Name!}`) so that re2js refuses the pattern at the same place Go does.
 * - Repeated group names: Go accepts `(?P<a>x)(?P<a>y)`, re2js refuses it. Names mean nothing to
 *   CEL's matches/find/findAll, so when one repeats every name is dropped (`(?P<a>x)` → `(x)`).
 * - A pattern ending in `(?<` or `(?P<`: Go calls that Perl syntax, re2js a named capture.
 *
 * Everything else — error codes, the quoted fragment, limits (repeat counts up to 1000, nesting
 * depth, size) — re2js already reports as Go does.
 */

/** Go 1.24's unicode.Categories (no Cn or LC yet) and the parser's own `Any`. */
const GO_CATEGORIES = ['Any', 'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs'];

/** Go 1.24's unicode.Scripts: the scripts of Unicode 15.0.0. */
const GO_SCRIPTS = [
  'Adlam', 'Ahom', 'Anatolian_Hieroglyphs', 'Arabic', 'Armenian', 'Avestan', 'Balinese', 'Bamum', 'Bassa_Vah', 'Batak', 'Bengali', 'Bhaiksuki', 'Bopomofo', 'Brahmi',
  'Braille', 'Buginese', 'Buhid', 'Canadian_Aboriginal', 'Carian', 'Caucasian_Albanian', 'Chakma', 'Cham', 'Cherokee', 'Chorasmian', 'Common', 'Coptic', 'Cuneiform',
  'Cypriot', 'Cypro_Minoan', 'Cyrillic', 'Deseret', 'Devanagari', 'Dives_Akuru', 'Dogra', 'Duployan', 'Egyptian_Hieroglyphs', 'Elbasan', 'Elymaic', 'Ethiopic',
  'Georgian', 'Glagolitic', 'Gothic', 'Grantha', 'Greek', 'Gujarati', 'Gunjala_Gondi', 'Gurmukhi', 'Han', 'Hangul', 'Hanifi_Rohingya', 'Hanunoo', 'Hatran', 'Hebrew',
  'Hiragana', 'Imperial_Aramaic', 'Inherited', 'Inscriptional_Pahlavi', 'Inscriptional_Parthian', 'Javanese', 'Kaithi', 'Kannada', 'Katakana', 'Kawi', 'Kayah_Li',
  'Kharoshthi', 'Khitan_Small_Script', 'Khmer', 'Khojki', 'Khudawadi', 'Lao', 'Latin', 'Lepcha', 'Limbu', 'Linear_A', 'Linear_B', 'Lisu', 'Lycian', 'Lydian',
  'Mahajani', 'Makasar', 'Malayalam', 'Mandaic', 'Manichaean', 'Marchen', 'Masaram_Gondi', 'Medefaidrin', 'Meetei_Mayek', 'Mende_Kikakui', 'Meroitic_Cursive',
  'Meroitic_Hieroglyphs', 'Miao', 'Modi', 'Mongolian', 'Mro', 'Multani', 'Myanmar', 'Nabataean', 'Nag_Mundari', 'Nandinagari', 'New_Tai_Lue', 'Newa', 'Nko', 'Nushu',
  'Nyiakeng_Puachue_Hmong', 'Ogham', 'Ol_Chiki', 'Old_Hungarian', 'Old_Italic', 'Old_North_Arabian', 'Old_Permic', 'Old_Persian', 'Old_Sogdian', 'Old_South_Arabian',
  'Old_Turkic', 'Old_Uyghur', 'Oriya', 'Osage', 'Osmanya', 'Pahawh_Hmong', 'Palmyrene', 'Pau_Cin_Hau', 'Phags_Pa', 'Phoenician', 'Psalter_Pahlavi', 'Rejang', 'Runic',
  'Samaritan', 'Saurashtra', 'Sharada', 'Shavian', 'Siddham', 'SignWriting', 'Sinhala', 'Sogdian', 'Sora_Sompeng', 'Soyombo', 'Sundanese', 'Syloti_Nagri', 'Syriac',
  'Tagalog', 'Tagbanwa', 'Tai_Le', 'Tai_Tham', 'Tai_Viet', 'Takri', 'Tamil', 'Tangsa', 'Tangut', 'Telugu', 'Thaana', 'Thai', 'Tibetan', 'Tifinagh', 'Tirhuta', 'Toto',
  'Ugaritic', 'Vai', 'Vithkuqi', 'Wancho', 'Warang_Citi', 'Yezidi', 'Yi', 'Zanabazar_Square',
];

const GO_UNICODE_CLASSES = new Set([...GO_CATEGORIES, ...GO_SCRIPTS]);

/** The pattern as re2js should parse it, and what to undo in the text of re2js's errors. */
export interface Re2jsPattern {
  source: string;
  /** The `\p{…}` spoiled so re2js refuses it: its text as Go quotes it and as re2js will. */
  spoiled?: { go: string; re2js: string };
}

interface Scan {
  names: { start: number; end: number; name: string }[];
  /** The first `\p{Name}` whose name Go does not know (after it, Go parses nothing more). */
  unknownClass?: { start: number; end: number };
}

/**
 * Walks the pattern as Go's parser does, only as far as needed to find named groups and `\p{…}`
 * classes: escapes (and `\Q…\E` outside classes) and `[…]` classes (with `[:name:]`) are skipped
 * so their text is never mistaken for either. The walk stops where Go would report an error.
 */
function scan(p: string): Scan {
  const names: Scan['names'] = [];
  let inClass = false;
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '\\') {
      const d = p[i + 1];
      if (d === undefined) break;
      if (d === 'Q' && !inClass) {
        const end = p.indexOf('\\E', i + 2);
        if (end < 0) break;
        i = end + 2;
        continue;
      }
      if ((d === 'p' || d === 'P') && p[i + 2] === '{') {
        const close = p.indexOf('}', i + 3);
        if (close < 0) break;
        const name = p.slice(i + 3, close).replace(/^\^/, '');
        if (!GO_UNICODE_CLASSES.has(name)) return { names, unknownClass: { start: i, end: close + 1 } };
        i = close + 1;
        continue;
      }
      // Single-letter \pX names are the same seven in Go and re2js; other escapes are one character.
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === '[' && p[i + 1] === ':') {
        const end = p.indexOf(':]', i + 2);
        if (end >= 0) {
          i = end + 2;
          continue;
        }
      } else if (c === ']') inClass = false;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      i++;
      if (p[i] === '^') i++;
      if (p[i] === ']') i++; // a `]` first in a class is a literal
      continue;
    }
    if (c === '(' && p[i + 1] === '?') {
      const rest = p.length - i;
      const nameStart = rest > 4 && p[i + 2] === 'P' && p[i + 3] === '<' ? i + 4 : rest > 3 && p[i + 2] === '<' ? i + 3 : -1;
      if (nameStart < 0) {
        i += 2;
        continue;
      }
      const close = p.indexOf('>', nameStart);
      const name = close < 0 ? '' : p.slice(nameStart, close);
      if (!/^[A-Za-z0-9_]+$/.test(name)) break;
      names.push({ start: i, end: close + 1, name });
      i = close + 1;
      continue;
    }
    i++;
  }
  return { names };
}

/** The pattern adjusted so that re2js accepts and refuses exactly what Go 1.24 does. */
export function re2jsPattern(pattern: string): Re2jsPattern {
  const { names, unknownClass } = scan(pattern);
  const repeated = new Set(names.map((n) => n.name)).size < names.length;
  if (!repeated && !unknownClass) return { source: pattern };
  let source = '';
  let at = 0;
  if (repeated) {
    for (const n of names) {
      source += `${pattern.slice(at, n.start)}(`;
      at = n.end;
    }
  }
  if (!unknownClass) return { source: source + pattern.slice(at) };
  const go = pattern.slice(unknownClass.start, unknownClass.end);
  const re2js = `${go.slice(0, -1)}!}`;
  source += pattern.slice(at, unknownClass.start) + re2js + pattern.slice(unknownClass.end);
  return { source, spoiled: { go, re2js } };
}

/** Go's message for a parse error that re2js reported as `code` about the fragment `expr`. */
export function goParseErrorMessage(pattern: string, adjusted: Re2jsPattern, code: string, expr: string | null | undefined): string {
  let goCode = code;
  let goExpr = expr ?? '';
  if (code === 'invalid named capture' && (goExpr === '(?<' || goExpr === '(?P<')) {
    // Too short to be a named group for Go: it reads them as flags after `(?` and stops at `<` or `P`.
    goCode = 'invalid or unsupported Perl syntax';
    goExpr = goExpr === '(?<' ? '(?<' : '(?P';
  } else if (code === 'expression too large' || code === 'expression nests too deeply' || goExpr === adjusted.source) {
    // Go quotes the whole pattern (re2js nothing for the first two), as the caller wrote it.
    goExpr = pattern;
  } else if (adjusted.spoiled && goExpr === adjusted.spoiled.re2js) goExpr = adjusted.spoiled.go;
  return `error parsing regexp: ${goCode}: \`${goExpr}\``;
}
