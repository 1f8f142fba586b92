/** A mistake in what an owner asked for (bad email, unknown model…): shown to them as is. */
export class AdminInputError extends Error {}
