/**
 * A click whose value is broken, forged, or from an older version of the card. Thrown by the codec
 * that reads values back; features answer it with a sentence about the button.
 */
export class StaleValueError extends Error {
  constructor(what: string) {
    super(`the button's value is not usable (${what})`);
  }
}
