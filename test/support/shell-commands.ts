/**
 * What a pasted command does in bash and in zsh (the macOS default), read without running it: the words and operators
 * of a command line, and what would make it parse differently in the two shells or fail as pasted.
 */

/** A placeholder the reader fills in, written `<lower-case-words>`; it stands for one word. */
export const READER_PLACEHOLDER = /^<[a-z][a-z0-9.-]*>/;

/** Why a command line would not paste the same in bash and zsh; empty when it would. */
export function shellProblems(line: string): string[] {
  const problems: string[] = [];
  let i = 0;
  /** Closing characters of the open `$(`, `(` and `"` contexts, innermost last. */
  const open: string[] = [];
  let wordStart = true;
  const inDouble = () => open.at(-1) === '"';
  while (i < line.length) {
    const c = line[i] as string;
    const rest = line.slice(i);
    if (inDouble()) {
      if (c === '\\') i += 2;
      else if (c === '"') {
        open.pop();
        i++;
      } else if (rest.startsWith('$((')) i = skipArithmetic(line, i, problems);
      else if (rest.startsWith('$(')) {
        open.push(')');
        i += 2;
        wordStart = true;
      } else if (c === '!' && !/^![\s=("]/.test(rest) && rest.length > 1) {
        problems.push(`"!" in double quotes is history expansion in interactive bash and zsh: ${context(line, i)}`);
        i++;
      } else i++;
      continue;
    }
    if (/\s/.test(c)) {
      wordStart = true;
      i++;
      continue;
    }
    const startsWord = wordStart;
    wordStart = false;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) {
        problems.push(`unbalanced single quote: ${context(line, i)}`);
        break;
      }
      i = end + 1;
    } else if (c === '"') {
      open.push('"');
      i++;
    } else if (c === '\\') i += 2;
    else if (rest.startsWith('$((')) i = skipArithmetic(line, i, problems);
    else if (rest.startsWith('$(')) {
      open.push(')');
      i += 2;
      wordStart = true;
    } else if (rest.startsWith('${')) {
      const end = line.indexOf('}', i);
      i = end < 0 ? line.length : end + 1;
    } else if (c === '(') {
      open.push(')');
      i++;
      wordStart = true;
    } else if (c === ')') {
      if (open.at(-1) === ')') open.pop();
      else problems.push(`unbalanced ")": ${context(line, i)}`);
      i++;
    } else if (c === '#' && startsWord) {
      if (line.slice(0, i).trim() !== '' && open.length === 0) {
        problems.push(
          `a comment after a command: zsh, without interactivecomments, passes it on as arguments: ${context(line, i)}`,
        );
      }
      break;
    } else if (c === '<' && READER_PLACEHOLDER.test(rest)) {
      i += (READER_PLACEHOLDER.exec(rest)?.[0] ?? '<').length;
    } else if ((c === '[' || c === ']') && startsWord && /^[[\]]{1,2}(\s|$)/.test(rest)) {
      i += (/^[[\]]{1,2}/.exec(rest)?.[0] ?? '[').length;
    } else if (c === '?' || c === '*' || c === '[' || c === ']') {
      problems.push(`unquoted "${c}" is a glob, which zsh rejects when nothing matches: ${context(line, i)}`);
      i++;
    } else if (c === '{' && /^\{[^}\s]*,[^}\s]*\}/.test(rest)) {
      problems.push(`unquoted {a,b} is brace expansion: ${context(line, i)}`);
      i++;
    } else if (c === '=' && startsWord) {
      problems.push(`a word starting with "=" is a path lookup in zsh: ${context(line, i)}`);
      i++;
    } else if (c === '!' && !/^![\s=(]/.test(rest) && rest.length > 1) {
      problems.push(`"!" is history expansion in interactive bash and zsh: ${context(line, i)}`);
      i++;
    } else if (c === ';' || c === '|' || c === '&') {
      wordStart = true;
      i++;
    } else i++;
  }
  if (open.includes('"')) problems.push(`unbalanced double quote in: ${line}`);
  else if (open.length > 0) problems.push(`unclosed "$(" or "(" in: ${line}`);
  return problems;
}

function skipArithmetic(line: string, at: number, problems: string[]): number {
  let depth = 0;
  for (let i = at + 1; i < line.length; i++) {
    if (line[i] === '(') depth++;
    else if (line[i] === ')' && --depth === 0) return i + 1;
  }
  problems.push(`unclosed "$((": ${context(line, at)}`);
  return line.length;
}

function context(line: string, at: number): string {
  return `…${line.slice(Math.max(0, at - 30), at + 30)}…`;
}

export type Token = { readonly word: string } | { readonly operator: string };

/**
 * The words of a command line with their quotes removed, and the operators between commands (`;`, `|`, `&&`, `$(`,
 * `)`, ...). Expansions are kept as written (`"$ng"` is the word `$ng`). Enough to find each `aws` call and its options.
 */
export function shellTokens(line: string): Token[] {
  const tokens: Token[] = [];
  let word = '';
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push({ word });
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    const rest = line.slice(i);
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? undefined : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let depth = 0;
      for (; j < line.length; j++) {
        if (line[j] === '\\') j++;
        else if (line.startsWith('$(', j)) depth++;
        else if (line[j] === ')' && depth > 0) depth--;
        else if (line[j] === '"' && depth === 0) break;
      }
      const inner = line.slice(i + 1, j);
      // A command substitution inside double quotes is a command of its own: its tokens follow as a sub-command.
      const substitution = /^\$\((.*)\)$/s.exec(inner);
      if (substitution) {
        flush();
        tokens.push({ operator: '$(' }, ...shellTokens(substitution[1] as string), { operator: ')' });
      } else {
        word += inner;
        inWord = true;
      }
      i = j;
    } else if (c === '\\') {
      word += line[i + 1] ?? '';
      inWord = true;
      i++;
    } else if (/\s/.test(c)) flush();
    else if (c === '#' && !inWord) break;
    else if (rest.startsWith('$((')) {
      const end = line.indexOf('))', i);
      word += line.slice(i, end < 0 ? undefined : end + 2);
      inWord = true;
      i = end < 0 ? line.length : end + 1;
    } else if (rest.startsWith('$(')) {
      flush();
      tokens.push({ operator: '$(' });
      i++;
    } else if (/^(&&|\|\||;;|[;|&()])/.test(rest)) {
      flush();
      const operator = /^(&&|\|\||;;|[;|&()])/.exec(rest)?.[0] as string;
      tokens.push({ operator });
      i += operator.length - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return tokens;
}

/** One `aws SERVICE OPERATION --option ...` call found in a command line. */
export interface AwsCall {
  readonly service: string;
  readonly operation: string;
  /** Option names without the leading `--`, each once, in order. */
  readonly options: readonly string[];
  readonly command: string;
}

const SHELL_KEYWORDS = new Set(['do', 'then', 'else', 'elif', 'until', 'while', 'if', 'time', '!']);

export function awsCalls(line: string): AwsCall[] {
  const calls: AwsCall[] = [];
  const tokens = shellTokens(line);
  let commandStart = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if ('operator' in token) {
      commandStart = true;
      continue;
    }
    if (commandStart && SHELL_KEYWORDS.has(token.word)) continue;
    if (commandStart && token.word === 'aws') {
      const words: string[] = [];
      // A command substitution inside an argument ("$(date +%s)") is part of that argument, not the end of the call.
      let depth = 0;
      for (let j = i + 1; j < tokens.length; j++) {
        const next = tokens[j] as Token;
        if ('word' in next) {
          if (depth === 0) words.push(next.word);
        } else if (next.operator === '$(') depth++;
        else if (next.operator === ')' && depth > 0) depth--;
        else if (depth === 0) break;
      }
      const [service = '', operation = '', ...args] = words;
      const options = [
        ...new Set(args.filter((a) => a.startsWith('--')).map((a) => (a.slice(2).split('=')[0] as string).trim())),
      ];
      calls.push({ service, operation, options, command: line });
    }
    commandStart = false;
  }
  return calls;
}

/**
 * The command lines of a Markdown document: every line of its ```sh blocks (continuation lines joined), and every
 * inline code span in its prose that starts with a command.
 */
export function markdownCommands(markdown: string): string[] {
  const commands: string[] = [];
  const prose = markdown.replace(/```(\w*)\n([\s\S]*?)```/g, (_, language: string, body: string) => {
    if (language === 'sh' || language === 'bash') {
      // A quoted argument (an awk program) may span lines: a command ends where its quotes are closed.
      let pending = '';
      for (const line of body.replace(/\\\n\s*/g, ' ').split('\n')) {
        pending = pending === '' ? line : `${pending}\n${line}`;
        if (!quoteOpen(pending) && pending.trim() !== '') {
          commands.push(pending);
          pending = '';
        }
      }
      if (pending.trim() !== '') commands.push(pending);
    }
    return '';
  });
  for (const match of prose.matchAll(/`([^`\n]+)`/g)) {
    const span = match[1] as string;
    if (COMMAND_START.test(span)) commands.push(span);
  }
  return commands;
}

const COMMAND_START =
  /^(?:aws [a-z0-9]+ [a-z0-9-]+|(?:kubectl|helm|gcloud|etcdctl|curl|for|until|while|grep|setopt)(?:\s|$)|[A-Z][A-Z0-9_]*=)/;

/** Whether a command's text ends inside a single- or double-quoted string. */
function quoteOpen(text: string): boolean {
  return quotedAt(text, text.length) !== undefined;
}

/**
 * The quote that is open at `index` of a command line (`'` or `"`), or undefined. A command substitution inside double
 * quotes opens a context of its own, where single quotes count again.
 */
export function quotedAt(text: string, index: number): "'" | '"' | undefined {
  const open: string[] = [];
  for (let i = 0; i < index && i < text.length; i++) {
    const c = text[i];
    const top = open.at(-1);
    if (top === "'") {
      if (c === "'") open.pop();
    } else if (c === '\\') i++;
    else if (top === '"' && c === '"') open.pop();
    else if (text.startsWith('$(', i)) {
      open.push(')');
      i++;
    } else if (top === ')' && c === ')') open.pop();
    else if (top !== '"' && c === "'") open.push("'");
    else if (c === '"') open.push('"');
    else if (top !== '"' && c === '#' && /(^|\s)$/.test(text.slice(0, i)) && !open.includes('"')) {
      // The rest of the line is a comment: quotes in it open nothing.
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    }
  }
  const quote = [...open].reverse().find((c) => c === "'" || c === '"');
  return open.at(-1) === "'" || open.at(-1) === '"' ? (quote as "'" | '"') : undefined;
}
