/**
 * HAL's own words in a room, in the panel's namespace: one sentence per note code (`panel_note_<code>`, whose
 * placeholders are the params spec's `NOTE_CODES` gives that code) and one description per slash command
 * (`panel_command_<name>`, for the command menu and `/help`). A note is stored once for every operator as a code
 * plus values; each reader's panel says it in that reader's language. `messages-panel.ts` merges these tables.
 */
import type { NoteCode } from '@hal-ai/spec';

const ko = {
  // ---- HAL notes ----
  panel_note_command_help: '{commands}',
  panel_note_command_tools: '{tools}',
  panel_note_command_tools_none: '활성 모델이 없습니다.',
  panel_note_command_model: '{name}: 이제 {model} 모델을 사용합니다.',
  panel_note_command_reset: '새 대화: 기록을 지웠습니다.',
  panel_note_command_reset_cancelled: '새 대화: 기록을 지우고 대기 중이던 제안 {cancelled}개를 취소했습니다.',
  panel_note_token_budget:
    '이 대화방의 토큰 예산을 다 썼습니다(제공자가 보고한 기준 {budget} 중 {used}). 새 턴은 시작되지 않습니다. 계속하려면 예산을 늘리거나 없애세요.',
  panel_note_tool_limit:
    '{name}: 한 턴의 도구 호출 한도({limit}회)에 도달해 멈췄습니다. 계속하게 하려면 메시지를 보내세요.',
  panel_note_relay_limit:
    '{name}이(가) {called}을(를) 불렀습니다. 자동 답변은 릴레이 한 번에서 멈추고, 다음 반응은 운영자를 기다립니다.',
  panel_note_approval_requested: '{name}(HAL의 MCP 서버 경유)이(가) {tool} ({risk}) 실행 승인을 요청합니다.',
  panel_note_approval_requested_client:
    'MCP 클라이언트 {client}이(가) {tool} ({risk}) 실행 승인을 요청합니다.',
  panel_note_action_executed: '{operator}님이 {tool}을(를) 승인했고, 실행되었습니다.',
  panel_note_action_executed_result: '{operator}님이 {tool}을(를) 승인했고, 실행되었습니다. 결과: {result}',
  panel_note_action_failed: '{operator}님이 {tool}을(를) 승인했지만 실패했습니다: {error}',
  panel_note_action_rejected: '{operator}님이 {tool}을(를) 거절했습니다: {reason}',
  panel_note_debate_paused_inactive:
    '{name}이(가) 활성 상태가 아닙니다. 토론이 일시 중지되었습니다. 계속하려면 재개하세요.',
  panel_note_debate_paused_failed:
    '{name}의 모델 호출이 실패했습니다. 토론이 일시 중지되었습니다. 계속하려면 재개하세요.',
  panel_note_debate_paused_cancelled:
    '{name}의 모델 호출이 취소되었습니다. 토론이 일시 중지되었습니다. 계속하려면 재개하세요.',
  panel_note_debate_budget_spent:
    '토론이 멈췄습니다: 토큰 예산을 다 썼습니다(제공자가 보고한 기준 {budget} 중 {used}).\n완료한 라운드: {maxRounds} 중 {round}, 작업 문서 버전 {version}.',
  panel_note_debate_budget_spent_verdict:
    '토론이 멈췄습니다: 토큰 예산을 다 썼습니다(제공자가 보고한 기준 {budget} 중 {used}).\n완료한 라운드: {maxRounds} 중 {round}, 작업 문서 버전 {version}.\n마지막 판정: {level} — {reason}\n합의: {agreed}\n이견: {disputed}',
  panel_note_debate_compacted:
    '1–{through} 라운드는 이제 사회자의 요약으로 전달됩니다(프롬프트가 모델의 컨텍스트에 맞지 않습니다). 전체 라운드 기록은 보관됩니다.',
  panel_note_debate_verdict_invalid:
    '사회자의 판정이 두 번 모두 올바르지 않았습니다({error}). 답변하면 사회자가 다시 판정합니다.',
  panel_note_debate_question: '사회자가 운영자에게 묻습니다: {question}',
  panel_note_debate_concluded: '토론이 결론에 도달했습니다: 양측이 두 라운드 연속 합의했습니다.',
  panel_note_debate_max_rounds: '마지막 라운드를 마쳐 토론을 멈춥니다({maxRounds} 중 {round}).',
  panel_note_debate_conclude_refused:
    '사회자가 결론을 내리려 했지만 양측의 연속 합의는 지금까지 {streak}라운드입니다. 결론에는 {needed}라운드가 필요합니다. 토론을 계속합니다.',
  panel_note_wiki_published: 'Wiki.js: 토론 페이지가 다시 게시되었습니다.',
  panel_note_wiki_publish_failed:
    'Wiki.js 게시에 실패했습니다({error}: {message}). 토론은 계속됩니다. HAL이 {seconds}초 뒤와 다음 라운드 뒤에 다시 시도합니다.',
  panel_note_wiki_publish_failed_later:
    'Wiki.js 게시에 실패했습니다({error}: {message}). 토론은 계속됩니다. HAL이 다음 라운드 뒤에 다시 시도합니다.',

  // ---- slash commands (the command menu and /help) ----
  panel_command_help: '슬래시 명령 목록을 봅니다.',
  panel_command_tools: '이 방의 모델에게 허용된 도구를 봅니다.',
  panel_command_model: '이 방의 연결을 확인된 다른 모델로 바꿉니다.',
  panel_command_reset: '새 대화를 시작합니다: 기록을 지우고 대기 중인 제안을 취소합니다.',
  panel_command_status: 'HAL 전체 상태.',
  panel_command_health: 'HAL 상태 점검.',
  panel_command_servers: '서버 목록.',
  panel_command_server: '서버 하나와 그 지표.',
  panel_command_jobs: '작업 목록.',
  panel_command_job: '작업 하나와 그 로그.',
  panel_command_releases: '릴리스 목록.',
  panel_command_incidents: '인시던트 목록.',
  panel_command_audit: '최근 감사 기록.',
  panel_command_dr: '재해 복구 상태.',
  panel_command_emergency: '비상 복구 절차.',
  panel_command_order: '모델에게 지시합니다.',
  panel_command_deploy: '배포를 제안합니다.',
  panel_command_rollback: '롤백을 제안합니다.',
  panel_command_isolate: '서버 격리를 제안합니다.',
  panel_command_incident: '인시던트 열기를 제안합니다.',
} as const satisfies Record<string, string>;

const en = {
  // ---- HAL notes ----
  panel_note_command_help: '{commands}',
  panel_note_command_tools: '{tools}',
  panel_note_command_tools_none: 'No active model.',
  panel_note_command_model: '{name} now uses {model}.',
  panel_note_command_reset: 'New conversation: history cleared.',
  panel_note_command_reset_cancelled:
    'New conversation: history cleared, {cancelled} pending proposal(s) cancelled.',
  panel_note_token_budget:
    'This room reached its token budget ({used} of {budget} tokens, as the providers reported them): no new turn starts. Raise or remove the budget to continue.',
  panel_note_tool_limit:
    '{name} reached the limit of {limit} tool calls in one turn and stopped. Send a message to let it continue.',
  panel_note_relay_limit:
    '{name} called {called}. Automatic replies stop after one relay — the next reaction waits for the operator.',
  panel_note_approval_requested:
    "{name} (through HAL's MCP server) asks for approval to run {tool} ({risk}).",
  panel_note_approval_requested_client: 'MCP client {client} asks for approval to run {tool} ({risk}).',
  panel_note_action_executed: '{operator} approved {tool}; it was executed.',
  panel_note_action_executed_result: '{operator} approved {tool}; it was executed. Result: {result}',
  panel_note_action_failed: '{operator} approved {tool}; it failed: {error}',
  panel_note_action_rejected: '{operator} rejected {tool}: {reason}',
  panel_note_debate_paused_inactive: '{name} is not active. The debate is paused; resume it to go on.',
  panel_note_debate_paused_failed: "{name}'s model call failed. The debate is paused; resume it to go on.",
  panel_note_debate_paused_cancelled:
    "{name}'s model call was cancelled. The debate is paused; resume it to go on.",
  panel_note_debate_budget_spent:
    'The debate stopped: its token budget is spent ({used} of {budget} tokens, as the providers reported them).\nRounds completed: {round} of {maxRounds}; working document version {version}.',
  panel_note_debate_budget_spent_verdict:
    'The debate stopped: its token budget is spent ({used} of {budget} tokens, as the providers reported them).\nRounds completed: {round} of {maxRounds}; working document version {version}.\nLast verdict: {level} — {reason}\nAgreed: {agreed}\nDisputed: {disputed}',
  panel_note_debate_compacted:
    "Rounds 1–{through} are carried as the moderator's summary from now on (the prompts would not fit the models' context); the full round log is kept.",
  panel_note_debate_verdict_invalid:
    "The moderator's verdict was not valid twice ({error}). Answer to let the moderator judge again.",
  panel_note_debate_question: 'The moderator asks the operator: {question}',
  panel_note_debate_concluded: 'The debate concluded: the sides agreed in two consecutive rounds.',
  panel_note_debate_max_rounds: 'The debate stops after its last round ({round} of {maxRounds}).',
  panel_note_debate_conclude_refused:
    'The moderator wanted to conclude, but the sides have agreed in {streak} consecutive round(s) so far; a conclusion needs {needed}. The debate continues.',
  panel_note_wiki_published: 'Wiki.js: the debate pages are published again.',
  panel_note_wiki_publish_failed:
    'Wiki.js publishing failed ({error}: {message}). The debate goes on; HAL tries again in {seconds} s and after the next round.',
  panel_note_wiki_publish_failed_later:
    'Wiki.js publishing failed ({error}: {message}). The debate goes on; HAL tries again after the next round.',

  // ---- slash commands (the command menu and /help) ----
  panel_command_help: 'List the slash commands.',
  panel_command_tools: 'List the tools enabled for the models here.',
  panel_command_model: "Switch this room's connection to another checked model.",
  panel_command_reset: 'Start a new conversation: clear the history and cancel pending proposals.',
  panel_command_status: 'Overall HAL status.',
  panel_command_health: 'HAL health check.',
  panel_command_servers: 'List servers.',
  panel_command_server: 'One server and its metrics.',
  panel_command_jobs: 'List jobs.',
  panel_command_job: 'One job and its logs.',
  panel_command_releases: 'List releases.',
  panel_command_incidents: 'List incidents.',
  panel_command_audit: 'Recent audit entries.',
  panel_command_dr: 'Disaster-recovery status.',
  panel_command_emergency: 'Emergency-recovery procedures.',
  panel_command_order: 'Give the models an order.',
  panel_command_deploy: 'Propose a deployment.',
  panel_command_rollback: 'Propose a rollback.',
  panel_command_isolate: 'Propose isolating a server.',
  panel_command_incident: 'Propose opening an incident.',
} as const satisfies Record<keyof typeof ko, string>;

/** The catalogue key of a note code's sentence. */
export type PanelNoteKey = `panel_note_${NoteCode}`;

// Every code of `NOTE_CODES` has its sentence in both tables: a code added to spec without one fails to compile.
ko satisfies Record<PanelNoteKey, string>;

/** The notes' and commands' part of the panel's namespace (merged by `messages-panel.ts`). */
export const PANEL_NOTE_MESSAGES = { ko, en } as const;
