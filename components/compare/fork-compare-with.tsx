import { CompareWith } from './compare-with';

/** "Compare with…" beside the fork switcher (‹ n/m ›): the other versions of this message, each as "Branch k of n". */
export function ForkCompareWith({ sessionId, messageId, siblings }: { sessionId: string; messageId: string; siblings: string[] }) {
  const choices = siblings.flatMap((id, index) => (id === messageId ? [] : [{ id, label: `Branch ${index + 1} of ${siblings.length}` }]));
  return <CompareWith sessionId={sessionId} from={messageId} choices={choices} toTips />;
}
