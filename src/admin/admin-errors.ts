/** A mistake in what an owner asked for (bad email, unknown model…): shown to them as is. */
export class AdminInputError extends Error {
  /** The field at fault (`models`, `strategy`…), where the message alone does not say which. */
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}
