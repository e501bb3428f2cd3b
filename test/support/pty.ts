/** The pseudo-terminal helpers (util-linux `script`), from one place. */
export * from '../helpers/pty.js';
