/**
 * What the operators' commands share (docs/operations.md): their exit, and the usage error for
 * arguments a command does not take. Each command's own exit codes are in its header; an error it
 * did not expect exits 2 (a start-up error) unless the command says otherwise.
 */
import { parseArgs } from 'node:util';

/** Runs `main` and exits with its code; an error it throws is printed after `prefix` and exits `failureCode`. */
export function runCommand(main: () => Promise<number>, prefix: string, failureCode = 2): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${prefix}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(failureCode);
    },
  );
}

/** A command word with its positional arguments and `--json`. */
export interface ParsedCommand {
  command: string;
  args: string[];
  json: boolean;
}

/**
 * The command line of a `COMMAND ARG… [--json]` tool: null, with `usage` printed, when an option is
 * unknown or `accepts` refuses the command word and its arguments (the caller exits 2).
 */
export function parseCommand(usage: string, accepts: (command: string, args: string[]) => boolean): ParsedCommand | null {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { json: { type: 'boolean' } } });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}\n`);
    return null;
  }
  const [command, ...args] = parsed.positionals;
  if (command === undefined || !accepts(command, args)) {
    process.stderr.write(`${usage}\n`);
    return null;
  }
  return { command, args, json: parsed.values.json === true };
}
