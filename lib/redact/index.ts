export { redactMessage, redactMessages, redactText, redactValue, type RedactableMessage, type RedactResult, type RedactValueResult } from './redact.js';
