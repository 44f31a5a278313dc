import { invalidPayload } from '../../domain/errors.ts';
import { atRow } from '../../domain/items/import-row.ts';
import { jsonRecord } from './json-record.ts';

type State = 'start' | 'first' | 'next' | 'item' | 'after' | 'done';

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A JSON array of objects, one object at a time as the text arrives. No package installed here streams
 * JSON, and this needs little: a scan over the top level that finds where each object starts and ends
 * (braces counted outside strings), then JSON.parse of that object's text alone, so at most one object
 * (up to `maxChars`) is held. Anything but objects at the top level of the array is refused with the row
 * it stands at; what is inside an object is for JSON.parse to judge.
 */
export async function* jsonArrayRecords(
  text: AsyncIterable<string>,
  maxChars: number,
): AsyncIterable<unknown> {
  let state: State = 'start';
  let row = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: string[] = [];
  let length = 0;
  const refuse = (message: string) => atRow(invalidPayload(message), row + 1);
  for await (const chunk of text) {
    let itemStart = state === 'item' ? 0 : -1;
    for (let index = 0; index < chunk.length; index++) {
      const code = chunk.charCodeAt(index);
      if (state === 'item') {
        if (inString) {
          if (escaped) escaped = false;
          else if (code === BACKSLASH) escaped = true;
          else if (code === QUOTE) inString = false;
        } else if (code === QUOTE) inString = true;
        else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
        else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0) {
          parts.push(chunk.slice(itemStart, index + 1));
          length += index + 1 - itemStart;
          if (length > maxChars) throw refuse(`An item is longer than ${maxChars} characters.`);
          const item = parts.join('');
          parts = [];
          length = 0;
          row++;
          state = 'after';
          try {
            yield jsonRecord(item);
          } catch (error) {
            throw atRow(error, row);
          }
        }
        continue;
      }
      // JSON's whitespace: space, tab, line feed, carriage return.
      if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) continue;
      if (state === 'start') {
        if (code !== OPEN_BRACKET) throw refuse('The file is not a JSON array.');
        state = 'first';
      } else if ((state === 'first' || state === 'next') && code === OPEN_BRACE) {
        state = 'item';
        depth = 1;
        itemStart = index;
      } else if (state === 'first' && code === CLOSE_BRACKET) state = 'done';
      else if (state === 'after' && code === COMMA) state = 'next';
      else if (state === 'after' && code === CLOSE_BRACKET) state = 'done';
      else if (state === 'done') throw refuse('The file has more after its JSON array.');
      else if (state === 'after') throw refuse('The file is not a valid JSON array: "," or "]" expected.');
      else throw refuse('An item must be a JSON object.');
    }
    if (state === 'item') {
      parts.push(chunk.slice(itemStart));
      length += chunk.length - itemStart;
      if (length > maxChars) throw refuse(`An item is longer than ${maxChars} characters.`);
    }
  }
  if ((state as State) !== 'done') throw refuse('The file ends before its JSON array does.');
}
