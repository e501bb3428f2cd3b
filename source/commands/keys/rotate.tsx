import {notYetAvailable} from '../not-yet.js';

export default notYetAvailable('keys rotate', 'platform-tui keys rotate [--yes]', 'Rotate the API key with an overlap period');
