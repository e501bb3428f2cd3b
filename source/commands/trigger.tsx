import {notYetAvailable} from './not-yet.js';

export default notYetAvailable('trigger', 'platform-tui trigger <user-message|external-module-chosen> [options]', 'Send a signed test event to a receiver');
