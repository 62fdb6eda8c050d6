export type { ActionCardContext, ActionImpactAnswer, ActionImpactView } from './panel-action-card.js';
export { renderActionCard, renderValueList, toImpactAnswer } from './panel-action-card.js';
export type { PanelApi, PanelApiSettings, PanelSession } from './panel-api.js';
export { createPanelApi, PanelHttpError } from './panel-api.js';
export type { MountPanelSettings, PanelPrefs, SlashCommandView } from './panel-app.js';
export { clampPanelWidth, completionAt, mountPanel, PANEL_WIDTH_MAX, PANEL_WIDTH_MIN } from './panel-app.js';
export type {
  CliStatusView,
  MountConnectionsSettings,
  ProviderPresetView,
  ToolChoiceView,
} from './panel-connections.js';
export { mountConnections, OAUTH_MESSAGE_TYPE } from './panel-connections.js';
export type { DialogContext, ThreeStepConfirmation } from './panel-dialogs.js';
export {
  openReauthDialog,
  openRejectDialog,
  openThreeStepDialog,
  rememberOpener,
  withReauth,
} from './panel-dialogs.js';
export type { MarkdownRenderer, MarkdownRendererSettings } from './panel-markdown.js';
export { createMarkdownRenderer } from './panel-markdown.js';
export {
  completedBlocksEnd,
  createStreamingMarkdown,
  type StreamingMarkdown,
} from './panel-markdown-stream.js';
export type { OAuthResult } from './panel-oauth.js';
export { listenForOAuthResult, openOAuthPopup, startOAuthLogin } from './panel-oauth.js';
export type { RenderContext, TabView } from './panel-render.js';
export { createElement, renderMessage, renderTabs } from './panel-render.js';
export { createRoomView, type RoomView } from './panel-room-view.js';
export { type BottomFollower, createBottomFollower, FOLLOW_SLACK_PX } from './panel-scroll-follow.js';
export type { RoomTimeline, SseFrame } from './panel-sse.js';
export { createRoomTimeline, createSseParser } from './panel-sse.js';
export type { RoomStream, RoomStreamSettings } from './panel-stream.js';
export { createRoomStream } from './panel-stream.js';
export type { ShellSessionView, TerminalDialogHandle, TerminalDialogOptions } from './panel-terminal.js';
export { openTerminalDialog } from './panel-terminal.js';
export { openLoginTerminal } from './panel-terminal-login.js';
export type { TerminalKeyDecision, TerminalRow } from './panel-terminal-text.js';
export {
  extractTerminalUrls,
  joinWrappedRows,
  terminalKeyDecision,
  terminalPlainText,
} from './panel-terminal-text.js';
