/** The README's examples against npm start at noon on the next Saturday: the market closed for the weekend (test/readme/run-examples.ts). */
import { describeReadmeExamplesAt } from './run-examples';

describeReadmeExamplesAt('saturday');
