import type { Command } from 'commander';
import { paint } from './terminal-colour.ts';

/** `datagate: <reason>` on one line, so a script or a log keeps the whole reason in one entry. */
export function errorLine(reason: string, stream: NodeJS.WriteStream = process.stderr): string {
  return `${paint(stream, ['bold', 'red'], 'datagate:')} ${reason.replace(/\s*\n\s*/g, ' ').trim()}`;
}

/**
 * Commander's own refusals (unknown command or option, missing option, bad value) as one line each,
 * ending with where the right usage is, instead of the error followed by the whole help text. A group
 * given no command (`datagate users`), or asked for the help of one it does not have (`datagate help
 * bogus`), is such a mistake too: commander would print the group's help on stderr instead.
 */
export function oneLineUsageErrors(program: Command): void {
  for (const command of commandTree(program)) {
    const help = `${commandPath(command)} --help`;
    command.configureOutput({
      outputError: (message, write) => write(`${errorLine(`${reasonIn(message)}; see '${help}'`)}\n`),
    });
    if (command.commands.length > 0)
      command.on('beforeHelp', (context: { error: boolean }) => {
        if (!context.error) return;
        // No arguments: the group alone. Else `help <name>` named no command of the group.
        const mistake =
          command.args.length === 0 ? 'missing command' : `unknown command '${command.args.at(-1)}'`;
        command.error(`${mistake} (${command.commands.map((sub) => sub.name()).join(', ')})`);
      });
  }
}

/** Commander's message without its `error: ` prefix and final full stop, as the line goes on. */
function reasonIn(message: string): string {
  return message
    .trim()
    .replace(/^error: /, '')
    .replace(/\.$/, '');
}

function* commandTree(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* commandTree(sub);
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}
