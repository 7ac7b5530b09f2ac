/**
 * Every error the project throws on purpose is a SentinelError, so a command line or a handler can tell an
 * expected, explainable failure (print the message, exit 2) from a bug (print the stack).
 */
export class SentinelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem in a user-facing file: where it is and what was expected there. */
export interface InputProblem {
  /** JSON path inside the file, e.g. `$.clusters["dev-euw1"].signals["webhook.p99"]`. */
  readonly path: string;
  readonly message: string;
}

/**
 * A file's name as a message shows it: as given when it is a plain path, quoted as JSON when it holds spaces or control
 * characters, so that the name is seen whole (a name of one tab would otherwise read as an empty one).
 */
export function shownFile(file: string): string {
  return /^[\w./@:+,~-]+$/.test(file) ? file : JSON.stringify(file);
}

/** A configuration, rule or scenario file that does not follow its schema. */
export class InputError extends SentinelError {
  constructor(
    readonly file: string,
    readonly problems: readonly InputProblem[],
  ) {
    super(`${shownFile(file)} is not valid:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`);
  }
}
