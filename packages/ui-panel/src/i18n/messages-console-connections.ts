/**
 * The connections screen's provider guides, one per provider id and kind (`guide_<id>_<api_key|oauth|cli>`, a
 * `-` in the id written `_`), the names of the two providers that are descriptions rather than brands
 * (`provider_label_<id>`), and the OAuth popup's result page (`oauth_page_*`). The providers package keeps its
 * English guide for the JSON API; the screen says this one in the reader's language. `messages-console.ts`
 * merges these tables.
 */
const ko = {
  // ---- provider guides ----
  guide_anthropic_api_key:
    'Anthropic Console(console.anthropic.com → Settings → API keys)에서 키를 만드세요.',
  guide_anthropic_oauth:
    'Anthropic은 외부 제품이 Claude.ai 계정으로 로그인하는 것을 허용하지 않습니다. 여기서 OAuth는 직접 운영하는 게이트웨이를 뜻합니다: 인가 엔드포인트와 토큰 엔드포인트, 클라이언트 ID와 시크릿, 스코프를 입력하면 HAL이 토큰을 Bearer로 보냅니다. Claude 구독을 쓰려면 공식 claude CLI를 연결하세요.',
  guide_openai_api_key:
    'platform.openai.com → API keys에서 키를 만드세요. 기본 URL은 호환 프록시(…/v1)를 가리켜도 됩니다.',
  guide_openai_oauth: '운영자가 등록한 OAuth 클라이언트로만 가능합니다(예: OpenAI 앞단의 기업용 게이트웨이).',
  guide_openrouter_api_key: 'openrouter.ai → Keys에서 키를 만드세요.',
  guide_openrouter_oauth:
    'OpenRouter로 로그인합니다(PKCE): 클라이언트 등록이 필요 없고, OpenRouter가 HAL용 키를 발급합니다.',
  guide_gemini_api_key: 'Google AI Studio(aistudio.google.com → Get API key)에서 키를 만드세요.',
  guide_gemini_oauth:
    'Google Cloud Console에서 Generative Language API를 켜고 OAuth 클라이언트(웹 애플리케이션)를 만든 뒤, HAL의 콜백 URL을 리디렉션 URI로 추가하고 클라이언트 ID와 시크릿을 입력하세요.',
  guide_other_api_key:
    '서비스의 기본 URL을 버전 경로까지 포함해 입력하고(예: http://127.0.0.1:8000/v1), 키가 필요하면 키도 입력하세요.',
  guide_other_oauth:
    '서비스의 OAuth 클라이언트를 입력하세요: 인가 엔드포인트와 토큰 엔드포인트, 클라이언트 ID와 시크릿, 스코프.',
  guide_local_cli_cli:
    'Claude Code나 Codex를 서버에 설치하고, HAL을 실행하는 계정으로 로그인하세요: claude auth login 또는 codex login.',
  provider_label_other: '다른 OpenAI 호환 서비스',
  provider_label_local_cli: '로컬 CLI (Claude Code, Codex)',
  conn_oauth_google_scopes:
    'Google의 엔드포인트는 미리 설정되어 있습니다. 클라이언트 ID와 시크릿을 입력하세요. 스코프는 비워 두면 미리 설정된 Generative Language 스코프를 씁니다.',

  // ---- the OAuth popup's result page ----
  oauth_page_title: 'OAuth 로그인',
  oauth_page_done: '로그인을 마쳤습니다',
  oauth_page_failed: '로그인에 실패했습니다',
  oauth_page_connected: '{name}: 연결되었습니다.',
  oauth_page_status: '{name}: {status}',
  oauth_page_close: '이 창을 닫아도 됩니다.',
} as const satisfies Record<string, string>;

const en = {
  guide_anthropic_api_key:
    'Create a key in the Anthropic Console (console.anthropic.com → Settings → API keys).',
  guide_anthropic_oauth:
    'Anthropic does not let third-party products sign in with Claude.ai accounts. OAuth here means your own gateway: give its authorize and token endpoints, client id/secret and scopes; HAL sends the token as Bearer. To use a Claude subscription, connect the official claude CLI instead.',
  guide_openai_api_key:
    'Create a key at platform.openai.com → API keys. The base URL may point at a compatible proxy (…/v1).',
  guide_openai_oauth:
    'Only through an operator-supplied OAuth client (e.g. an enterprise gateway in front of OpenAI).',
  guide_openrouter_api_key: 'Create a key at openrouter.ai → Keys.',
  guide_openrouter_oauth:
    'Sign in with OpenRouter (PKCE): no client registration needed; OpenRouter issues a key for HAL.',
  guide_gemini_api_key: 'Create a key in Google AI Studio (aistudio.google.com → Get API key).',
  guide_gemini_oauth:
    'Create an OAuth client (Web application) in Google Cloud Console with the Generative Language API enabled, add HAL’s callback URL as a redirect URI, and enter its client id and secret.',
  guide_other_api_key:
    'Enter the service’s base URL including the version path (e.g. http://127.0.0.1:8000/v1) and its key, if it needs one.',
  guide_other_oauth:
    'Give the service’s OAuth client: authorize and token endpoints, client id/secret and scopes.',
  guide_local_cli_cli:
    'Install Claude Code or Codex on the server and log in as the account HAL runs as: claude auth login or codex login.',
  provider_label_other: 'Other OpenAI-compatible service',
  provider_label_local_cli: 'Local CLI (Claude Code, Codex)',
  conn_oauth_google_scopes:
    'Google’s endpoints are preset. Enter the client id and secret; leave the scopes empty to use the preset Generative Language scopes.',

  oauth_page_title: 'OAuth login',
  oauth_page_done: 'Login complete',
  oauth_page_failed: 'Login failed',
  oauth_page_connected: '{name} is connected.',
  oauth_page_status: '{name}: {status}',
  oauth_page_close: 'You can close this window.',
} as const satisfies Record<keyof typeof ko, string>;

/** The connections screen's guides and the OAuth result page, one table per language (merged into the console's). */
export const CONSOLE_CONNECTION_MESSAGES = { ko, en } as const;
