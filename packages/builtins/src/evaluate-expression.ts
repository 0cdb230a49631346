import { ToolError } from '@candor/errors';

/** Longer input is refused before parsing; a calculator needs no more. */
export const MAX_EXPRESSION_LENGTH = 1000;
const MAX_DEPTH = 100;

type Token =
  | { readonly kind: 'number'; readonly value: number; readonly at: number }
  | {
      readonly kind: 'op';
      readonly value: '+' | '-' | '*' | '/' | '%' | '**' | '(' | ')';
      readonly at: number;
    }
  | { readonly kind: 'end'; readonly at: number };

const SINGLE_OPERATORS = ['+', '-', '*', '/', '%', '(', ')'] as const;
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ALLOWED = 'only numbers, + - * / % ** and parentheses are allowed';

function formatError(message: string): ToolError {
  return new ToolError({ code: 'INVALID_FORMAT', message });
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const rest = source.slice(at);
    const char = rest.charAt(0);
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    const number = NUMBER.exec(rest)?.[0];
    if (number !== undefined) {
      tokens.push({ kind: 'number', value: Number(number), at });
      at += number.length;
      continue;
    }
    if (rest.startsWith('**')) {
      tokens.push({ kind: 'op', value: '**', at });
      at += 2;
      continue;
    }
    const op = SINGLE_OPERATORS.find((candidate) => candidate === char);
    if (op !== undefined) {
      tokens.push({ kind: 'op', value: op, at });
      at += 1;
      continue;
    }
    const name = NAME.exec(rest)?.[0];
    throw formatError(
      name === undefined
        ? `Unexpected character ${JSON.stringify(char)} at position ${at + 1}: ${ALLOWED}`
        : `Unknown name ${JSON.stringify(name)} at position ${at + 1}: ${ALLOWED}`,
    );
  }
  tokens.push({ kind: 'end', at });
  return tokens;
}

function finite(value: number, what: string): number {
  if (Number.isNaN(value)) {
    throw new ToolError({
      code: 'EXECUTION_ERROR',
      message: `${what} is not a real number`,
    });
  }
  if (!Number.isFinite(value)) {
    throw new ToolError({
      code: 'EXECUTION_ERROR',
      message: `${what} is too large to represent`,
    });
  }
  return value;
}

/** A recursive-descent parser that evaluates as it parses; it never builds code. */
class Parser {
  readonly #tokens: Token[];
  #index = 0;
  #depth = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): number {
    const value = this.#sum();
    const next = this.#peek();
    if (next.kind !== 'end') {
      throw formatError(
        next.kind === 'op' && next.value === ')'
          ? `Unmatched ")" at position ${next.at + 1}`
          : `Unexpected ${describe(next)} at position ${next.at + 1}: an operator is missing`,
      );
    }
    return value;
  }

  #peek(): Token {
    // The tokenizer always ends the list with an 'end' token.
    return this.#tokens[this.#index] ?? { kind: 'end', at: 0 };
  }

  #takeOp(...ops: string[]): string | undefined {
    const token = this.#peek();
    if (token.kind === 'op' && ops.includes(token.value)) {
      this.#index += 1;
      return token.value;
    }
    return undefined;
  }

  // sum := product (("+" | "-") product)*
  #sum(): number {
    let value = this.#product();
    for (
      let op = this.#takeOp('+', '-');
      op !== undefined;
      op = this.#takeOp('+', '-')
    ) {
      const right = this.#product();
      value = finite(op === '+' ? value + right : value - right, 'The result');
    }
    return value;
  }

  // product := unary (("*" | "/" | "%") unary)*
  #product(): number {
    let value = this.#unary();
    for (
      let op = this.#takeOp('*', '/', '%');
      op !== undefined;
      op = this.#takeOp('*', '/', '%')
    ) {
      const right = this.#unary();
      if (op !== '*' && right === 0) {
        throw new ToolError({
          code: 'EXECUTION_ERROR',
          message: op === '/' ? 'Division by zero' : 'Modulo by zero',
        });
      }
      const result =
        op === '*' ? value * right : op === '/' ? value / right : value % right;
      value = finite(result, 'The result');
    }
    return value;
  }

  // unary := ("+" | "-") unary | power. So -2 ** 2 is -(2 ** 2), as in mathematics.
  #unary(): number {
    const op = this.#takeOp('+', '-');
    if (op === undefined) return this.#power();
    return this.#nested(() => (op === '-' ? -this.#unary() : this.#unary()));
  }

  // power := primary ("**" unary)?, right-associative: 2 ** 3 ** 2 is 2 ** 9.
  #power(): number {
    const base = this.#primary();
    if (this.#takeOp('**') === undefined) return base;
    const exponent = this.#nested(() => this.#unary());
    if (base === 0 && exponent < 0) {
      throw new ToolError({
        code: 'EXECUTION_ERROR',
        message: 'Division by zero',
      });
    }
    return finite(base ** exponent, `${base} ** ${exponent}`);
  }

  // primary := number | "(" sum ")"
  #primary(): number {
    const token = this.#peek();
    if (token.kind === 'number') {
      this.#index += 1;
      return finite(token.value, 'A number');
    }
    if (token.kind === 'op' && token.value === '(') {
      this.#index += 1;
      const value = this.#nested(() => this.#sum());
      if (this.#takeOp(')') === undefined) {
        throw formatError(
          `Missing ")" for the "(" at position ${token.at + 1}`,
        );
      }
      return value;
    }
    throw formatError(
      token.kind === 'end'
        ? 'The expression ends where a number was expected'
        : `Expected a number at position ${token.at + 1}, found ${describe(token)}`,
    );
  }

  #nested(parse: () => number): number {
    this.#depth += 1;
    if (this.#depth > MAX_DEPTH) {
      throw formatError(`The expression nests deeper than ${MAX_DEPTH} levels`);
    }
    try {
      return parse();
    } finally {
      this.#depth -= 1;
    }
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'number':
      return `the number ${token.value}`;
    case 'op':
      return `"${token.value}"`;
    case 'end':
      return 'the end';
  }
}

/**
 * Evaluates arithmetic safely: numbers, `+ - * / % **` and parentheses, parsed by hand, with no
 * `eval` and no `Function`. Throws a `ToolError`: INVALID_PARAM for an empty or overlong
 * expression, INVALID_FORMAT for anything that is not arithmetic, EXECUTION_ERROR for division
 * by zero or a result that is not a finite number (never `Infinity` or `NaN`).
 *
 * @example
 * ```ts
 * evaluateExpression('2 + 3 * 4'); // 14
 * evaluateExpression('2 + abc'); // throws ToolError INVALID_FORMAT
 * ```
 */
export function evaluateExpression(expression: string): number {
  if (typeof expression !== 'string' || expression.trim() === '') {
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: 'The expression is empty',
    });
  }
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ToolError({
      code: 'INVALID_PARAM',
      message: `The expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
    });
  }
  const value = new Parser(tokenize(expression)).parse();
  // -0 is an artefact of floating point, not an answer anyone means.
  return Object.is(value, -0) ? 0 : value;
}
