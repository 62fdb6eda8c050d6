/**
 * Messages the console-polish work added (issue #16 point 3: the discovered-CLI card), in the panel's namespace.
 * Kept in a file of their own so they merge beside the other namespaces; `i18n-catalogue.ts` merges this table.
 */
const ko = {
  cli_login_command: '이 서버에서 HAL을 실행하는 계정으로 다음 명령을 실행해 로그인하세요:',
  cli_error: '확인 실패:',
} as const;

const en = {
  cli_login_command: 'Log in on the server as the account HAL runs as, with this command:',
  cli_error: 'Check failed:',
} as const satisfies Record<keyof typeof ko, string>;

/** The console-polish namespace of the message catalogue (see `i18n-catalogue.ts`). */
export const CONSOLE_POLISH_MESSAGES = { ko, en } as const;
