import {notYetAvailable} from '../not-yet.js';

export default notYetAvailable('keys set', 'platform-tui keys set', 'Store the API key');
