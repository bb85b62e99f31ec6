/** What other features may use of home: drawing a person's Home tab again after a change. */
export { publishHome } from './home.ts';
