const ENTER = new Set(['\r', '\n']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACE = new Set(['\u007f', '\b']);

/**
 * Asks for a secret on a terminal without echoing it: the terminal is put in raw mode, so the typed
 * characters reach this process only. Ctrl-C or Ctrl-D give up (rejects).
 */
export function promptSecret(
  question: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed = '';
    output.write(question);
    const finish = (outcome: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      outcome();
    };
    const onData = (chunk: Buffer | string) => {
      for (const character of chunk.toString('utf8')) {
        if (ENTER.has(character)) return finish(() => resolve(typed));
        if (character === CTRL_C || character === CTRL_D)
          return finish(() => reject(new Error('no password given')));
        if (BACKSPACE.has(character)) typed = [...typed].slice(0, -1).join('');
        else typed += character;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

/**
 * All of standard input, less the one line break that `echo` or a here-string adds: a secret piped in
 * (`--password-stdin`) is the line, not the line and its end. Decoded once, at the end: a character whose
 * bytes arrive in two chunks would otherwise be read as two U+FFFD. Bytes that are not UTF-8 are refused:
 * decoded leniently they would become U+FFFD, a password nobody could type or send.
 */
export async function readSecretFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new Error('the password on stdin is not valid UTF-8');
  }
  return text.replace(/\r?\n$/, '');
}
