import type {
  GenerationCall,
  ImagePart,
  TextPart,
  TranslationIssue,
} from '../../canonical/generation-call.ts';

const reason = 'Claude on Vertex AI takes images inline (base64), not by URL';

function byUrl(part: TextPart | ImagePart): boolean {
  return part.type === 'image' && part.source.kind === 'url';
}

/**
 * What Claude on Vertex AI refuses of a call the Messages dialect carries: an image by URL, in a
 * user message or a tool result (its Anthropic publisher answers "URL sources are not
 * supported"). Paths are canonical; the pipeline tells the client its own.
 */
export function refuseVertexAnthropicCall(call: GenerationCall): TranslationIssue[] {
  const issues: TranslationIssue[] = [];
  call.messages.forEach((message, messageIndex) => {
    if (message.role !== 'user') return;
    message.content.forEach((part, partIndex) => {
      const path = `messages[${messageIndex}].content[${partIndex}]`;
      if (part.type === 'image' && byUrl(part)) issues.push({ path, reason });
      if (part.type === 'tool-result' && typeof part.content !== 'string') {
        part.content.forEach((item, itemIndex) => {
          if (byUrl(item)) issues.push({ path: `${path}.content[${itemIndex}]`, reason });
        });
      }
    });
  });
  return issues;
}
