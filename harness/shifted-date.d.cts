/** Types of shifted-date.cjs. */
export declare function shiftedDate(RealDate: DateConstructor, offsetMs: number): DateConstructor;
