import { describeTwoCopies } from './two-copies.ts';

describeTwoCopies('sqlite');
