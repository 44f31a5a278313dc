import type { SweepProgress, SweepStage } from '../../application/files/sweep-files.ts';
import { progressBar } from './progress-bar.ts';

/** How each stage of a sweep is named on the terminal. */
const STAGE_LABELS: Readonly<Record<SweepStage, string>> = {
  files: 'files/',
  variants: 'variants/',
  uploads: 'tmp/',
  unreferenced: 'unreferenced bytes',
  rows: 'rows',
};

/**
 * A sweep's progress on stderr, on a terminal only (off one, the findings and the summary are the whole
 * output): the keys listed so far in each area of the store, whose number is not known beforehand, then a
 * bar over the rows, which are counted first. `clear` wipes the line before a finding is printed.
 */
export function sweepProgress(stream: NodeJS.WriteStream = process.stderr) {
  let bar: ReturnType<typeof progressBar> | undefined;
  let drawn = false;
  return {
    update({ stage, done, total }: SweepProgress) {
      if (!stream.isTTY) return;
      drawn = true;
      if (total === undefined) {
        stream.write(`\r\x1b[2K${STAGE_LABELS[stage]} ${done.toLocaleString('en')} keys checked`);
        return;
      }
      bar ??= progressBar(STAGE_LABELS[stage], stream);
      bar.update(done, total);
    },
    clear() {
      if (!drawn) return;
      stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
