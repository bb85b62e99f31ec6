import { installFlowSuite } from './install-suite.ts';

// On a real SQLite file.
installFlowSuite('sqlite');
