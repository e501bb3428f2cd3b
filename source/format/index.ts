/** The format kit: the one place for durations, bytes, plurals, text cuts, masking and unknown values. */
export * from './bytes.js';
export * from './duration.js';
export * from './secret.js';
export * from './text.js';
export * from './value.js';
