import {notYetAvailable} from './not-yet.js';

export default notYetAvailable('serve', 'platform-tui serve [options]', 'Run the webhook receiver with a live event log');
