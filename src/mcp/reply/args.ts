/** The arguments every tool takes besides its endpoint's: the answer budget and the cursor of a cut answer. */
import { z } from 'zod';

/** The budget a call may ask for (`maxTokens`), in tokens. */
export const MaxTokens = z.int().min(500).max(25000).optional().describe('Answer budget in tokens.');

/** The cursor of a cut answer (`ans.…`). */
export const AnswerCursor = z.string().min(1).max(200).optional().describe('nextCursor of a cut answer.');
