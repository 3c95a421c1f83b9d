import type { Multipart } from '@fastify/multipart';

import { ApiError } from '../../canonical/generation-error.ts';
import { spoolAudioUpload, type SpooledAudio } from './spool-audio-upload.ts';
import { transcriptionLimits } from './transcription-limits.ts';
import type { TranscriptionParameters } from './transcription-types.ts';

/** The parts of the request (docs/transcription.md) besides `file`, by their part names. */
const fieldNames = ['model', 'language', 'prompt', 'response_format'] as const;
type FieldName = (typeof fieldNames)[number];

export interface TranscriptionForm {
  parameters: TranscriptionParameters;
  audio: SpooledAudio;
  /** The file part's filename and content type, forwarded as sent. */
  filename: string;
  mimetype: string;
}

function isFieldName(name: string): name is FieldName {
  return (fieldNames as readonly string[]).includes(name);
}

function invalid(message: string, param: string): ApiError {
  return new ApiError('invalid_request', message, { details: { param } });
}

/**
 * Reads the multipart parts of the request in whatever order they come (the file may precede
 * `model`): the file is streamed to `spoolPath` as it arrives, the text parts are kept. An unknown
 * or repeated part, a file sent as text or text sent as a file, and a `response_format` other
 * than `json` (docs/decisions/0067) are 400 naming it, refused when that part arrives.
 */
export async function readTranscriptionForm(
  parts: AsyncIterable<Multipart>,
  spoolPath: string,
): Promise<TranscriptionForm> {
  try {
    return await readParts(parts, spoolPath);
  } catch (error) {
    throw asFormError(error);
  }
}

/**
 * The multipart parser (busboy) fails with plain errors on a body that is not the form its
 * headers announce: a wrong boundary, a body cut short, a malformed part header. Those are the
 * client's, so 400. The gateway's own failures (the spool file's disk, a call into the system)
 * stay what they are, and the multipart plugin's limit errors carry their own status.
 */
function asFormError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof ApiError) return error;
  const { syscall, statusCode } = error as { syscall?: unknown; statusCode?: unknown };
  if (syscall !== undefined || typeof statusCode === 'number') return error;
  return new ApiError('invalid_request', `The multipart body is malformed: ${error.message}.`);
}

async function readParts(
  parts: AsyncIterable<Multipart>,
  spoolPath: string,
): Promise<TranscriptionForm> {
  const fields: Partial<Record<FieldName, string>> = {};
  let upload: Omit<TranscriptionForm, 'parameters'> | undefined;
  for await (const part of parts) {
    const name = part.fieldname;
    if (name === 'file') {
      if (part.type !== 'file') throw invalid('The part "file" must be a file, not text.', 'file');
      if (upload !== undefined) throw invalid('The part "file" is sent twice.', 'file');
      upload = {
        audio: await spoolAudioUpload(part.file, spoolPath),
        filename: part.filename === '' ? 'audio.wav' : part.filename,
        mimetype: part.mimetype,
      };
      continue;
    }
    if (!isFieldName(name)) {
      throw invalid(`Unknown part "${name}"; the parts are file, ${fieldNames.join(', ')}.`, name);
    }
    if (part.type !== 'field') throw invalid(`The part "${name}" must be text, not a file.`, name);
    if (fields[name] !== undefined) throw invalid(`The part "${name}" is sent twice.`, name);
    if (part.valueTruncated || typeof part.value !== 'string') {
      throw invalid(
        `The part "${name}" must be text of at most ${transcriptionLimits.maxFieldBytes} bytes.`,
        name,
      );
    }
    fields[name] = part.value;
    if (
      name === 'response_format' &&
      !(transcriptionLimits.responseFormats as readonly string[]).includes(part.value)
    ) {
      throw invalid(
        `response_format "${part.value}" is not supported; the only format is "json".`,
        name,
      );
    }
  }
  if (fields.model === undefined || fields.model === '')
    throw invalid('The part "model" is required: a transcription model id.', 'model');
  if (upload === undefined) throw invalid('The part "file" is required: a WAV file.', 'file');
  return {
    parameters: {
      model: fields.model,
      ...(fields.language !== undefined ? { language: fields.language } : {}),
      ...(fields.prompt !== undefined ? { prompt: fields.prompt } : {}),
      response_format: 'json',
    },
    ...upload,
  };
}
