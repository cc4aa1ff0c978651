/** The README's examples against npm start at noon on the next exchange holiday: the market closed for the day (test/readme/run-examples.ts). */
import { describeReadmeExamplesAt } from './run-examples';

describeReadmeExamplesAt('holiday');
