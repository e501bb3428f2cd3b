/** The client suites' fixture: clients acting for user_1 of company_1 against one recording server per file. */
import {clientFixture, type ClientFixture} from './fixture.js';

/** Called at the top of each test file: the server's hooks are registered in that file. */
export function clientSuiteFixture(): ClientFixture {
	return clientFixture({userId: 'user_1', companyId: 'company_1'});
}
