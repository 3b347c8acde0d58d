import { createHighlighterCore, type HighlighterCore, type LanguageRegistration } from 'shiki/core';
import { createOnigurumaEngine } from 'shiki/engine/oniguruma';
import githubDark from 'shiki/themes/github-dark.mjs';
import githubLight from 'shiki/themes/github-light.mjs';

type LanguageModule = { default: LanguageRegistration[] };

/**
 * The languages we highlight: a bounded set, each loaded the first time a message uses it. Any
 * other fence stays plain text, so a message cannot make the server load every grammar.
 */
const LANGUAGES: Record<string, () => Promise<LanguageModule>> = {
  typescript: () => import('shiki/langs/typescript.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  bash: () => import('shiki/langs/bash.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  cpp: () => import('shiki/langs/cpp.mjs'),
  csharp: () => import('shiki/langs/csharp.mjs'),
  ruby: () => import('shiki/langs/ruby.mjs'),
  php: () => import('shiki/langs/php.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  dockerfile: () => import('shiki/langs/dockerfile.mjs'),
  xml: () => import('shiki/langs/xml.mjs'),
};

const ALIASES: Record<string, string> = {
  ts: 'typescript', js: 'javascript', mjs: 'javascript', cjs: 'javascript', sh: 'bash', shell: 'bash', zsh: 'bash',
  console: 'bash', py: 'python', rs: 'rust', cs: 'csharp', 'c++': 'cpp', rb: 'ruby', yml: 'yaml', md: 'markdown',
  patch: 'diff', docker: 'dockerfile', svg: 'xml', jsonc: 'json',
};

export const THEMES = { light: 'github-light', dark: 'github-dark' } as const;

/** One highlighter per server process, kept on globalThis so every module graph shares it. */
const shared = globalThis as typeof globalThis & { __emHighlighter?: Promise<HighlighterCore>; __emLanguages?: Map<string, Promise<void>> };

function highlighter(): Promise<HighlighterCore> {
  shared.__emHighlighter ??= createHighlighterCore({
    themes: [githubLight, githubDark],
    langs: [],
    // Oniguruma, the engine the grammars are written for (its WebAssembly is inlined in the module,
    // so every runtime loads it alike). The JavaScript engine's translated regexes backtrack on long
    // runs of whitespace: 10 C++ lines of 999 spaces took 1.5–4 s there, 54 ms here, and loading
    // the C++ grammar 2.5 s against 0.5 s.
    engine: createOnigurumaEngine(import('shiki/wasm')),
  });
  return shared.__emHighlighter;
}

/** The canonical name of a fence's language when we highlight it, else null. */
export function languageOf(fence: string): string | null {
  const name = fence.toLowerCase();
  const canonical = ALIASES[name] ?? name;
  return Object.hasOwn(LANGUAGES, canonical) ? canonical : null;
}

/** The highlighter with `language` loaded (loaded once, then cached). */
export async function highlighterFor(language: string): Promise<HighlighterCore> {
  const core = await highlighter();
  const loaded = (shared.__emLanguages ??= new Map());
  let loading = loaded.get(language);
  if (!loading) {
    loading = LANGUAGES[language]!()
      .then((module) => core.loadLanguage(module.default))
      // shiki 4 colours the first text of a newly loaded grammar with a stale light colour map
      // (every token the same colour); one throw-away pass sets it up.
      .then(() => void core.codeToTokensWithThemes('x', { lang: language, themes: THEMES }));
    loaded.set(language, loading);
    // A failed load is tried again next time rather than remembered.
    loading.catch(() => loaded.delete(language));
  }
  await loading;
  return core;
}
