export { prepareResume, type ResumeFile, type ResumeRequest } from './prepare-resume.js';
export { defaultResumeFolder } from './resume-folder.js';
export { matchResume, readResumeLinks, proxySessionIdOf, type ResumeLink, type ResumeMatch } from './resume-links.js';
export type { ResumeAgent } from './resume-fingerprints.js';
export { claudeProjectSlug } from './claude-code-transcript.js';
