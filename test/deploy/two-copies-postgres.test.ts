import { describeTwoCopies } from './two-copies.ts';

describeTwoCopies('postgres');
