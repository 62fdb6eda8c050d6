import type { CallOptions, GenerateResult, LanguageModel, StreamPart } from '@hal-ai/spec';
import { createProviderCall, type ProviderCall, sendProviderRequest } from './http-client.js';
import { definedHeaders, type HttpProviderSettings, joinUrl } from './http-settings.js';
import { type StreamEventMapper, streamProviderCall } from './stream-driver.js';

/** @internal What every HTTP model needs from its provider. */
export interface HttpModelConfig {
  baseUrl: string;
  headers: () => Record<string, string>;
  settings: HttpProviderSettings;
}

/**
 * @internal The request plumbing the Anthropic, OpenAI-compatible and Gemini models share: each call is a `POST`
 * of JSON under the base URL with the provider's headers plus the call's own, sent with the provider's timeouts and
 * retries. A vendor model builds the body and reads the answer.
 */
export abstract class HttpLanguageModel<TConfig extends HttpModelConfig = HttpModelConfig>
  implements LanguageModel
{
  abstract readonly provider: string;

  constructor(
    readonly modelId: string,
    protected readonly config: TConfig,
  ) {}

  abstract doGenerate(options: CallOptions): Promise<GenerateResult>;

  abstract doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }>;

  /** Sends one call and answers its parsed JSON body. */
  protected async postJson(options: CallOptions, path: string, body: unknown): Promise<unknown> {
    const response = await sendProviderRequest(this.call(options, path, body), this.config.settings);
    return response.json();
  }

  /**
   * Sends one streaming call. The mapper gets the call's secrets so that in-stream error messages leave them out.
   */
  protected postStream(
    options: CallOptions,
    path: string,
    body: unknown,
    createMapper: (secrets: readonly string[]) => StreamEventMapper,
  ): Promise<{ stream: ReadableStream<StreamPart> }> {
    const call = this.call(options, path, body);
    return streamProviderCall(call, this.config.settings, () => createMapper(call.secrets));
  }

  private call(options: CallOptions, path: string, body: unknown): ProviderCall {
    return createProviderCall({
      provider: this.provider,
      url: joinUrl(this.config.baseUrl, path),
      method: 'POST',
      headers: definedHeaders(this.config.headers(), options.headers),
      body,
      abortSignal: options.abortSignal,
    });
  }
}
