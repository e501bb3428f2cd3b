import {notYetAvailable} from './not-yet.js';

export default notYetAvailable('upload', 'platform-tui upload <folder_path> <instruction_prompt> [options]', 'Upload a folder into a new space chat, wait for ingestion and ask a question');
