import { installFlowSuite } from './install-suite.ts';

// On a PostgreSQL database of its own (the scheduler's posts then go through pg-boss).
installFlowSuite('postgres');
