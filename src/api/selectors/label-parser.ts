import { badRequest } from '../errors.ts';
import {
  freezeSelector,
  makeRequirement,
  sortedDistinct,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from './label-requirement.ts';
import { qualifiedNameErrors } from '../validation/names.ts';
import { goQuote } from '../go/quote.ts';

/*
 * The label selector grammar, tokenised and parsed the way the real server does it, so
 * that odd inputs (`x in (a,,b)`, `in in (in)`, `a=`) mean the same here and error texts
 * match word for word.
 */

type Tok = 'eos' | 'error' | 'id' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin';

interface Item {
  readonly tok: Tok;
  readonly lit: string;
}

const SYMBOLS: Readonly<Record<string, Tok>> = {
  '(': '(',
  ')': ')',
  ',': ',',
  '!': '!',
  '=': '=',
  '==': '==',
  '!=': '!=',
  '>': '>',
  '<': '<',
};

const KEYWORDS: Readonly<Record<string, Tok>> = { in: 'in', notin: 'notin' };

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function isSpecial(c: string): boolean {
  return c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/** Splits the text into tokens, ending with one `eos`. A NUL character reads as end of input, as upstream. */
function lex(text: string): Item[] {
  let pos = 0;
  const read = (): string => (pos < text.length ? text[pos++]! : '\0');
  const items: Item[] = [];
  for (;;) {
    let c = read();
    while (isSpace(c)) c = read();
    if (c === '\0') {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    pos--;
    if (isSpecial(c)) items.push(scanSymbol());
    else items.push(scanWord());
  }

  function scanWord(): Item {
    let word = '';
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (isSpecial(ch) || isSpace(ch)) {
        pos--;
        break;
      }
      word += ch;
    }
    const kw = Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word] : undefined;
    return { tok: kw ?? 'id', lit: word };
  }

  // The longest run of symbol characters that is still an operator: `!=` rather than `!`, `=`.
  function scanSymbol(): Item {
    let buf = '';
    let last: Item | undefined;
    for (;;) {
      const ch = read();
      if (ch === '\0') break;
      if (!isSpecial(ch)) {
        pos--;
        break;
      }
      buf += ch;
      const tok = Object.hasOwn(SYMBOLS, buf) ? SYMBOLS[buf] : undefined;
      if (tok) last = { tok, lit: buf };
      else if (last) {
        pos--;
        break;
      }
    }
    return last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` };
  }
}

class Parser {
  readonly #items: Item[];
  #pos = 0;

  constructor(text: string) {
    this.#items = lex(text);
  }

  // In value position `in` and `notin` are plain words (`in in (in)` is a valid selector).
  #peek(asValue: boolean): Item {
    return asWord(this.#items[this.#pos]!, asValue);
  }

  #next(asValue: boolean): Item {
    return asWord(this.#items[this.#pos++]!, asValue);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.#peek(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.#requirement());
      } catch (err) {
        if (err instanceof ParseError) throw new ParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.#next(true);
      if (after.tok === 'eos') return reqs;
      if (after.tok !== ',') throw new ParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.#peek(true);
      if (following.tok !== 'id' && following.tok !== '!') {
        throw new ParseError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  #requirement(): LabelRequirement {
    let first = this.#next(true);
    const negated = first.tok === '!';
    if (negated) first = this.#next(true);
    if (first.tok !== 'id') throw new ParseError(`found '${first.lit}', expected: identifier`);
    const key = first.lit;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length > 0) throw new ParseError(`<nil>: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
    const ahead = this.#peek(true).tok;
    if (negated || ahead === 'eos' || ahead === ',') return build(key, negated ? '!' : 'exists', []);

    const operator = this.#operator();
    const values = operator === 'in' || operator === 'notin' ? this.#valueSet() : [this.#exactValue()];
    return build(key, operator, sortedDistinct(values));
  }

  #operator(): LabelOperator {
    const { tok, lit } = this.#next(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new ParseError(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  #exactValue(): string {
    const ahead = this.#peek(true).tok;
    if (ahead === 'eos' || ahead === ',') return '';
    const { tok, lit } = this.#next(true);
    if (tok !== 'id') throw new ParseError(`found '${lit}', expected: identifier`);
    return lit;
  }

  // `(a,b)`; empty entries such as `(,a)` or `()` stand for the empty value.
  #valueSet(): string[] {
    const open = this.#next(true);
    if (open.tok !== '(') throw new ParseError(`found '${open.lit}' expected: '('`);
    const first = this.#peek(true);
    if (first.tok === ')') {
      this.#pos++;
      return [''];
    }
    if (first.tok !== 'id' && first.tok !== ',') {
      throw new ParseError(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.#valueList();
    if (this.#next(true).tok !== ')') throw new ParseError(`found '${first.lit}', expected: ')'`);
    return values;
  }

  #valueList(): string[] {
    const values: string[] = [];
    for (;;) {
      const { tok, lit } = this.#next(true);
      if (tok === 'id') {
        values.push(lit);
        const ahead = this.#peek(true);
        if (ahead.tok === ',') continue;
        if (ahead.tok === ')') return values;
        throw new ParseError(`found '${ahead.lit}', expected: ',' or ')'`);
      }
      if (tok !== ',') throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      if (values.length === 0) values.push('');
      const ahead = this.#peek(true).tok;
      if (ahead === ')') {
        values.push('');
        return values;
      }
      if (ahead === ',') {
        this.#pos++;
        values.push('');
      }
    }
  }
}

function asWord(item: Item, asValue: boolean): Item {
  return asValue && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
}

function build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const made = makeRequirement(key, operator, values);
  if ('error' in made) throw new ParseError(made.error);
  return made;
}

class ParseError extends Error {}

/**
 * Parses the `labelSelector` query parameter. Invalid text throws a 400 BadRequest whose
 * message is the real server's (`unable to parse requirement: …`, `found 'x', expected: …`).
 *
 * @example parseLabelSelector('app=web,tier in (a,b),!canary')
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return freezeSelector(new Parser(text).parse());
  } catch (err) {
    if (err instanceof ParseError) throw badRequest(err.message);
    throw err;
  }
}
