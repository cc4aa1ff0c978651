/** The README's examples against npm start at the minute before the next early close: the regular session ends, and its transition pause runs, while they run (test/readme/run-examples.ts). */
import { describeReadmeExamplesAt } from './run-examples';

describeReadmeExamplesAt('early-close');
