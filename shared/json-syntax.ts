/**
 * Where JSON text first breaks the grammar, as a line and column. JSON.parse's own messages name a position on some
 * Node versions and only a snippet on others ("Unexpected token ']', ..."), so the position is found here instead.
 */
export function syntaxErrorAt(text: string): { line: number; column: number } | undefined {
  const offset = firstErrorOffset(text);
  if (offset === undefined) return undefined;
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// A string may not hold raw control characters (U+0000 to U+001F); \p{Cc} also takes U+007F to U+009F, which can
// only move where an already broken file is said to break.
const STRING = /"(?:[^"\\\p{Cc}]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/uy;
const LITERAL = /true|false|null/y;
const SPACE = /[ \t\n\r]*/y;

/** The offset of the first character that cannot continue a JSON text, or undefined when the text is valid. */
function firstErrorOffset(text: string): number | undefined {
  let at = 0;
  const skip = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at;
    if (!pattern.exec(text)) return false;
    at = pattern.lastIndex;
    return true;
  };
  // An explicit stack of what each open container expects next, so that nesting depth cannot overflow the call stack.
  const open: ('object' | 'array')[] = [];
  let expectValue = true;
  for (;;) {
    skip();
    if (expectValue) {
      const char = text[at];
      if (char === '{' || char === '[') {
        at++;
        skip();
        const close = char === '{' ? '}' : ']';
        if (text[at] === close) {
          at++;
          expectValue = false;
          continue;
        }
        open.push(char === '{' ? 'object' : 'array');
        if (char === '{' && !objectKey()) return at;
        continue;
      }
      if (!(match(STRING) || match(NUMBER) || match(LITERAL))) return at;
      expectValue = false;
      continue;
    }
    const container = open.at(-1);
    if (container === undefined) return at === text.length ? undefined : at;
    const char = text[at];
    if (char === ',') {
      at++;
      skip();
      if (container === 'object' && !objectKey()) return at;
      expectValue = true;
      continue;
    }
    if (char === (container === 'object' ? '}' : ']')) {
      at++;
      open.pop();
      continue;
    }
    return at;
  }

  /** `"key" :` at the current offset; leaves `at` on the value. */
  function objectKey(): boolean {
    skip();
    if (!match(STRING)) return false;
    skip();
    if (text[at] !== ':') return false;
    at++;
    expectValue = true;
    return true;
  }
}
