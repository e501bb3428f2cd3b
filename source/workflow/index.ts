export * from './errors.js';
export * from './events.js';
export * from './files.js';
export * from './retries.js';
export * from './run-upload.js';
