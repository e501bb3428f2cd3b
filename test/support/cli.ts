/** The built-CLI helpers (child process without a TTY), from one place. */
export * from '../helpers/cli.js';
