// Argo Rollouts conditions are expr-lang; convoy evaluates CEL. This translates the common subset that
// AnalysisTemplates use, keeping expr's meaning: comparisons, arithmetic (`/` always divides as
// doubles, as expr does), and/or/not in both spellings, `len`, `isNaN`, `isInf`, `asInt`, `asFloat`,
// `all`/`any` with a `#` predicate, `default`, `result[i]`, field access, literals. Anything else is
// refused with what was not translated: a condition is never guessed (docs/design.md#verification).

type Node =
  | { readonly t: 'int' | 'float' | 'string' | 'bool' | 'nil'; readonly v: string }
  | { readonly t: 'result' }
  | { readonly t: 'pointer' }
  | { readonly t: 'member'; readonly of: Node; readonly name: string }
  | { readonly t: 'index'; readonly of: Node; readonly at: Node }
  | { readonly t: 'call'; readonly name: string; readonly args: readonly Node[] }
  | { readonly t: 'predicate'; readonly body: Node }
  | { readonly t: 'unary'; readonly op: '!' | '-' | '+'; readonly x: Node }
  | { readonly t: 'binary'; readonly op: string; readonly a: Node; readonly b: Node };

type Token = { readonly k: 'num' | 'str' | 'ident' | 'op' | 'end'; readonly v: string; readonly at: number };

export class ExprTranslateError extends Error {
  override readonly name = 'ExprTranslateError';
}

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '+', '-', '*', '/', '%', '(', ')'];
const PUNCT = ['[', ']', '{', '}', ',', '.', '#'];
const MAX_SOURCE = 4096;
const MAX_DEPTH = 64;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?|\.\d[\d_]*(?:[eE][+-]?\d+)?)/.exec(
      src.slice(i),
    );
    if (num && !(c === '.' && /[\w#)\]]/.test(src[i - 1] ?? ''))) {
      const based = /^0[xXbBoO]\w*/.exec(src.slice(i));
      if (based) throw new ExprTranslateError(`number ${based[0]} is not translated`);
      out.push({ k: 'num', v: num[0].replaceAll('_', ''), at: i });
      i += num[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let v = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\') {
          const e = src[j + 1];
          const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
          if (e === undefined || map[e] === undefined) {
            throw new ExprTranslateError(`escape \\${e ?? ''} in a string is not translated`);
          }
          v += map[e];
          j += 2;
        } else v += src[j++];
      }
      if (j >= src.length) throw new ExprTranslateError('unterminated string');
      out.push({ k: 'str', v, at: i });
      i = j + 1;
      continue;
    }
    const id = /^[A-Za-z_$][\w$]*/.exec(src.slice(i));
    if (id) {
      out.push({ k: 'ident', v: id[0], at: i });
      i += id[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i)) ?? PUNCT.find((o) => src.startsWith(o, i));
    // Longer expr operators that start like a known one are refused, not read as two tokens.
    const longer =
      ['**', '..', '?.', '??'].find((o) => src.startsWith(o, i)) ??
      (c === '|' && src[i + 1] !== '|' ? '|' : undefined);
    if (op === undefined || longer !== undefined) {
      throw new ExprTranslateError(`operator ${longer ?? c} is not translated`);
    }
    out.push({ k: 'op', v: op, at: i });
    i += op.length;
  }
  out.push({ k: 'end', v: '', at: src.length });
  return out;
}

// expr-lang's binary precedences (higher binds tighter); `and`/`or` are the word spellings.
const BINARY: Readonly<Record<string, number>> = {
  '||': 10,
  or: 10,
  '&&': 15,
  and: 15,
  '==': 20,
  '!=': 20,
  '<': 20,
  '>': 20,
  '<=': 20,
  '>=': 20,
  '+': 30,
  '-': 30,
  '*': 60,
  '/': 60,
  '%': 60,
};
const UNARY_PRECEDENCE: Readonly<Record<string, number>> = { '!': 50, not: 50, '-': 90, '+': 90 };
const FUNCTIONS: Readonly<Record<string, number>> = {
  len: 1,
  isNaN: 1,
  isInf: 1,
  asInt: 1,
  asFloat: 1,
  default: 2,
  all: 2,
  any: 2,
};

/** A table's entry for `key`, never one of Object.prototype's (`constructor`, `toString`). */
function own(table: Readonly<Record<string, number>>, key: string): number | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

class Parser {
  #pos = 0;
  #depth = 0;
  #closures = 0;
  readonly #tokens: readonly Token[];
  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  #peek(): Token {
    return this.#tokens[this.#pos] as Token;
  }
  #next(): Token {
    return this.#tokens[this.#pos++] as Token;
  }
  #expect(v: string): void {
    const t = this.#next();
    if (t.v !== v || t.k === 'str') throw new ExprTranslateError(`expected ${v} at offset ${t.at}`);
  }

  parseAll(): Node {
    const n = this.expr(0);
    if (this.#peek().k !== 'end')
      throw new ExprTranslateError(`unexpected ${this.#peek().v} at offset ${this.#peek().at}`);
    return n;
  }

  expr(min: number): Node {
    if (++this.#depth > MAX_DEPTH) throw new ExprTranslateError(`nested more than ${MAX_DEPTH} deep`);
    let left = this.#unary();
    for (;;) {
      const t = this.#peek();
      const p = t.k === 'op' || t.k === 'ident' ? own(BINARY, t.v) : undefined;
      if (p === undefined || p <= min) break;
      this.#next();
      const right = this.expr(p);
      left = { t: 'binary', op: t.v === 'and' ? '&&' : t.v === 'or' ? '||' : t.v, a: left, b: right };
    }
    // Word operators expr has and this does not translate (in, matches, contains, …).
    const t = this.#peek();
    if (t.k === 'ident' && !(t.v in BINARY))
      throw new ExprTranslateError(`operator ${t.v} is not translated`);
    if (t.k === 'op' && t.v === '?') throw new ExprTranslateError('operator ? is not translated');
    this.#depth--;
    return left;
  }

  #unary(): Node {
    const t = this.#peek();
    const p = t.k === 'op' || t.k === 'ident' ? own(UNARY_PRECEDENCE, t.v) : undefined;
    if (p !== undefined) {
      this.#next();
      const x = this.expr(p - 1);
      return { t: 'unary', op: t.v === 'not' ? '!' : (t.v as '!' | '-' | '+'), x };
    }
    return this.#postfix(this.#primary());
  }

  #postfix(start: Node): Node {
    let n = start;
    for (;;) {
      const t = this.#peek();
      if (t.k === 'op' && t.v === '.') {
        this.#next();
        const name = this.#next();
        if (name.k !== 'ident') throw new ExprTranslateError(`expected a field name at offset ${name.at}`);
        if (this.#peek().v === '(' && this.#peek().k === 'op')
          throw new ExprTranslateError(`method ${name.v}() is not translated`);
        n = { t: 'member', of: n, name: name.v };
      } else if (t.k === 'op' && t.v === '[') {
        this.#next();
        const at = this.expr(0);
        this.#expect(']');
        n = { t: 'index', of: n, at };
      } else return n;
    }
  }

  #primary(): Node {
    const t = this.#next();
    switch (t.k) {
      case 'num':
        return { t: /[.eE]/.test(t.v) ? 'float' : 'int', v: t.v };
      case 'str':
        return { t: 'string', v: t.v };
      case 'ident':
        return this.#identifier(t);
      case 'op':
        if (t.v === '(') {
          const n = this.expr(0);
          this.#expect(')');
          return n;
        }
        if (t.v === '#') {
          if (this.#closures === 0) throw new ExprTranslateError('# outside a predicate');
          if (this.#peek().k === 'ident')
            throw new ExprTranslateError(`#${this.#peek().v} is not translated`);
          return { t: 'pointer' };
        }
        if (t.v === '.' && this.#closures > 0 && this.#peek().k === 'ident') {
          // `.field` inside a predicate is expr's short form of `#.field`.
          return { t: 'member', of: { t: 'pointer' }, name: this.#next().v };
        }
        if (t.v === '[' || t.v === '{')
          throw new ExprTranslateError(`${t.v === '[' ? 'array' : 'map'} literals are not translated`);
        throw new ExprTranslateError(`unexpected ${t.v} at offset ${t.at}`);
      case 'end':
        throw new ExprTranslateError('unexpected end of expression');
    }
  }

  #identifier(t: Token): Node {
    if (t.v === 'true' || t.v === 'false') return { t: 'bool', v: t.v };
    if (t.v === 'nil') return { t: 'nil', v: 'null' };
    if (t.v === 'result') return { t: 'result' };
    const arity = own(FUNCTIONS, t.v);
    if (arity === undefined || this.#peek().v !== '(') {
      throw new ExprTranslateError(
        this.#peek().v === '('
          ? `function ${t.v}() is not translated`
          : `unknown name ${t.v} (only result is defined)`,
      );
    }
    this.#next();
    const args: Node[] = [];
    while (this.#peek().v !== ')' || this.#peek().k !== 'op') {
      if (args.length > 0) this.#expect(',');
      const predicate = (t.v === 'all' || t.v === 'any') && args.length === 1;
      args.push(predicate ? this.#predicate() : this.expr(0));
      if (this.#peek().k === 'end') throw new ExprTranslateError(`unterminated call of ${t.v}()`);
    }
    this.#next();
    if (args.length !== arity)
      throw new ExprTranslateError(
        `${t.v}() takes ${arity} argument${arity > 1 ? 's' : ''}, got ${args.length}`,
      );
    return { t: 'call', name: t.v, args };
  }

  /** `{# > 0}` or `# > 0`: a predicate over one element. */
  #predicate(): Node {
    const braced = this.#peek().k === 'op' && this.#peek().v === '{';
    if (braced) this.#next();
    this.#closures++;
    const body = this.expr(0);
    this.#closures--;
    if (braced) this.#expect('}');
    return { t: 'predicate', body };
  }
}

const CEL_RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
  'in',
  'true',
  'false',
  'null',
]);

function emit(n: Node, depth: number): string {
  switch (n.t) {
    case 'int':
      return n.v;
    case 'float': {
      const x = Number(n.v);
      if (!Number.isFinite(x)) throw new ExprTranslateError(`number ${n.v} is out of range`);
      const s = String(x);
      return /[.e]/.test(s) ? s : `${s}.0`;
    }
    case 'string':
      return JSON.stringify(n.v);
    case 'bool':
    case 'nil':
      return n.v;
    case 'result':
      return 'result';
    case 'pointer':
      return `x${depth - 1}`;
    case 'member':
      return /^[A-Za-z_]\w*$/.test(n.name) && !CEL_RESERVED.has(n.name)
        ? `${emit(n.of, depth)}.${n.name}`
        : `${emit(n.of, depth)}[${JSON.stringify(n.name)}]`;
    case 'index':
      if (n.at.t === 'unary' && n.at.op === '-')
        throw new ExprTranslateError('negative indexes are not translated');
      return `${emit(n.of, depth)}[${emit(n.at, depth)}]`;
    case 'predicate':
      return emit(n.body, depth);
    case 'unary':
      return n.op === '+' ? emit(n.x, depth) : `${n.op}(${emit(n.x, depth)})`;
    case 'binary': {
      const a = emit(n.a, depth);
      const b = emit(n.b, depth);
      // expr divides as doubles (7 / 2 is 3.5); CEL would divide two ints as ints.
      return n.op === '/' ? `(double(${a}) / double(${b}))` : `(${a} ${n.op} ${b})`;
    }
    case 'call':
      return emitCall(n.name, n.args, depth);
  }
}

function emitCall(name: string, args: readonly Node[], depth: number): string {
  const [a, b] = args as [Node, Node];
  switch (name) {
    case 'len':
      return `size(${emit(a, depth)})`;
    case 'isNaN':
    case 'isInf':
      return `${name}(${emit(a, depth)})`;
    case 'asInt':
      return `int(${emit(a, depth)})`;
    case 'asFloat':
      return `double(${emit(a, depth)})`;
    case 'default': {
      const x = emit(a, depth);
      return `(${x} == null ? ${emit(b, depth)} : ${x})`;
    }
    case 'all':
    case 'any':
      if (b.t !== 'predicate') throw new ExprTranslateError(`${name}() needs a predicate`);
      return `${emit(a, depth)}.${name === 'all' ? 'all' : 'exists'}(x${depth}, ${emit(b, depth + 1)})`;
    default:
      throw new ExprTranslateError(`function ${name}() is not translated`);
  }
}

/** The CEL of an expr-lang condition; throws ExprTranslateError naming what is not translated. */
export function exprToCel(source: string): string {
  if (source.length > MAX_SOURCE) throw new ExprTranslateError(`longer than ${MAX_SOURCE} characters`);
  return emit(new Parser(tokenize(source)).parseAll(), 0);
}
