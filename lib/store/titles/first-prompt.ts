import { titleFromText } from './truncate.js';

/**
 * The title of a session whose source gave none (a Claude Code or Codex transcript): the first
 * prompt's, by the chat's phase 1 rule (titleFromText), so an imported session reads like one
 * written here rather than by its last prompt. A prompt that leaves nothing (only attachments,
 * not text) gives way to the next; '' when none has text.
 */
export function titleFromFirstPrompt(prompts: Iterable<unknown>): string {
  for (const prompt of prompts) {
    if (typeof prompt !== 'string') continue;
    const title = titleFromText(prompt);
    if (title !== '') return title;
  }
  return '';
}
