import {notYetAvailable} from '../not-yet.js';

export default notYetAvailable('keys show', 'platform-tui keys show', 'Show the API key (masked) and rotation state');
