import { styleText } from 'node:util';

export type Style = Parameters<typeof styleText>[0];

/**
 * Colour is for a person at a terminal: pipes, files and CI logs get plain text even under FORCE_COLOR
 * (scripts parse these lines), and NO_COLOR (https://no-color.org) or a terminal without colours turns it off.
 */
export function paint(
  stream: NodeJS.WriteStream,
  style: Style,
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const colours = stream.isTTY === true && !env.NO_COLOR && stream.hasColors(env);
  return colours ? styleText(style, text, { validateStream: false }) : text;
}
