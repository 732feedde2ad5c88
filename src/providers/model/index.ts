/** The language-model providers synthesis can use: the `ChatModel` contract and its OpenAI-compatible client. */
export type { ChatChunk, ChatMessage, ChatModel, ChatRequest, ChatResult, TokenUsage } from './types.js';
export { createOpenAiChatModel, type OpenAiChatModelOptions, type PostStream } from './openai-chat.js';
