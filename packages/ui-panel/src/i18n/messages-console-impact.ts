/**
 * The impact an operator judges before approving (issue #16 points 2 and 6): the summary sentence of every HAL
 * operation (`impact_<operation>`), the labels of the facts an impact lists (`impact_field_<key>`), the words a
 * value may stand for (`impact_value_<word>`) and the impact block's own texts (`impact_ui_<text>`).
 *
 * HAL's operations (`apps/hal/src/domain/operations`) answer a `summaryCode` and `summaryParams` beside the
 * English `summary`; the English sentence *is* `translate('en', summaryCode, summaryParams)`, so what a model
 * reads and what an English-speaking operator reads cannot drift apart. A `{state}` or `{severity}` placeholder
 * takes the state's word (`state_<value>`) where the catalogue has one. `messages-console.ts` merges these tables.
 */
const ko = {
  // ---- summaries: servers ----
  impact_server_create:
    '{name} 서버({role})를 등록합니다: 승인 대기 상태로 시작하며 승인 전에는 아무것도 받지 않습니다',
  impact_server_approve: '{name} 서버를 승인합니다: 활성 상태가 되어 배포를 받을 수 있습니다',
  impact_server_maintenance_on: '{name} 서버를 점검 상태로 둡니다: 작업하는 동안 새 배포를 받지 않습니다',
  impact_server_maintenance_off: '{name} 서버를 점검에서 활성 상태로 되돌립니다',
  impact_server_agent_token:
    '{name} 서버의 에이전트 토큰을 새로 발급합니다: 이전 토큰은 더 이상 쓸 수 없습니다',
  impact_server_isolate: '{name} 서버를 격리합니다: 배포를 받지 않고 에이전트 접속이 거부됩니다',
  impact_server_delete: '{name} 서버를 삭제합니다: 에이전트 토큰이 폐기되고 기록은 남습니다',
  // ---- summaries: releases and deployments ----
  impact_release_register: '{module}@{version} 릴리스를 등록합니다: 승인된 뒤에만 배포됩니다',
  impact_release_approve:
    '{module}@{version} 릴리스를 승인합니다: 이후 활성 서버 어디에나 배포할 수 있습니다',
  impact_deploy_request: '{module}@{version}을(를) {server} 서버에 배포합니다',
  impact_deploy_rollback: '{server} 서버의 {module}을(를) 이전 버전으로 롤백합니다',
  impact_deploy_reconcile_server: '{server} 서버를 원하는 버전에 맞춥니다(다른 모듈은 배포하거나 롤백합니다)',
  impact_deploy_reconcile_all: '모든 활성 서버를 원하는 버전에 맞춥니다(다른 모듈은 배포하거나 롤백합니다)',
  impact_module_health:
    '{server} 서버의 {module} 상태를 확인합니다(module_health 작업, 바뀌는 것은 없습니다)',
  // ---- summaries: jobs ----
  impact_job_cancel:
    '작업 {id}({type}, {state})을(를) 취소합니다: 다음 단계 경계에서 멈추고 취소됨으로 끝납니다',
  impact_job_retry:
    '작업 {id}({type}, {state})을(를) 재시도합니다: 연결된 새 작업이 같은 일을 다시 실행합니다',
  impact_job_resume: '작업 {id}({type}, {state})을(를) 재개합니다: 마지막으로 끝난 단계 다음부터 이어갑니다',
  impact_job_stop: '작업 {id}({type}, {state})을(를) 일시 중지합니다: 재개할 때까지 단계 사이에서 멈춥니다',
  impact_job_revert:
    '{server} 서버의 {module}@{version} 배포를 되돌립니다: 이전 버전으로 롤백하는 작업입니다',
  // ---- summaries: incidents and DR ----
  impact_incident_open: '{severity} 장애 {key}을(를) 엽니다: {title}',
  impact_incident_resolve: '장애 {id}을(를) 해결 처리합니다',
  impact_dr_snapshot:
    '지금 재해 복구 스냅샷을 만듭니다: HAL 데이터베이스의 온라인 백업을 integrity_check로 검증합니다',
  // ---- summaries: settings ----
  impact_settings_set_global: '{key} 값을 설정합니다(전역)',
  impact_settings_set_server: '{server} 서버의 {key} 값을 설정합니다',
  impact_secret_set: '비밀 값 {key}을(를) 설정합니다',
  impact_secret_set_server: '{server} 서버의 비밀 값 {key}을(를) 설정합니다',
  impact_secret_unset: '비밀 값 {key}을(를) 지웁니다',
  impact_secret_unset_server: '{server} 서버의 비밀 값 {key}을(를) 지웁니다',
  impact_settings_apply_server: '{server} 서버에 유효한 설정을 적용합니다',
  impact_settings_apply_all: 'HAL과 모든 활성 서버에 설정을 적용합니다',
  // ---- the facts an impact lists ----
  impact_field_state: '상태',
  impact_field_name: '이름',
  impact_field_role: '역할',
  impact_field_id: 'ID',
  impact_field_server: '서버',
  impact_field_serverId: '서버 ID',
  impact_field_release: '릴리스',
  impact_field_module: '모듈',
  impact_field_version: '버전',
  impact_field_actualVersion: '현재 버전',
  impact_field_sha256: 'SHA-256',
  impact_field_size: '크기(바이트)',
  impact_field_deployments: '배포된 모듈',
  impact_field_differences: '다른 버전',
  impact_field_job: '작업',
  impact_field_type: '종류',
  impact_field_finishedAt: '끝난 시각',
  impact_field_incident: '장애',
  impact_field_key: '키',
  impact_field_title: '제목',
  impact_field_severity: '심각도',
  impact_field_resolution: '해결 내용',
  impact_field_reason: '사유',
  impact_field_snapshots: '스냅샷',
  impact_field_count: '개수',
  impact_field_lastAgeS: '마지막 스냅샷 이후(초)',
  impact_field_lastVerified: '마지막 검증',
  impact_field_values: '적용할 값',
  impact_field_fromSource: '이전 값의 출처',
  impact_field_note: '참고',
  impact_field_value: '값',
  // ---- words a value stands for ----
  impact_value_all_servers: '모든 활성 서버',
  impact_value_previous_version: '이전 버전',
  impact_value_setting_fallback: 'null은 저장된 값을 지웁니다: 키는 기본값으로 돌아갑니다',
  impact_value_yes: '예',
  impact_value_no: '아니요',
  // ---- the impact block ----
  impact_ui_title: '바뀌는 것',
  impact_ui_changes: '바뀌는 값',
  impact_ui_facts: '대상',
  impact_ui_raw: '원본 JSON',
  impact_ui_loading: '영향을 계산하는 중…',
  impact_ui_failed: '무엇이 바뀌는지(영향)를 불러오지 못했습니다.',
  impact_ui_retry: '다시 불러오기',
  impact_ui_approve_held: '영향을 확인할 수 있을 때까지 승인할 수 없습니다.',
} as const satisfies Record<`impact_${string}`, string>;

const en = {
  impact_server_create:
    'Register server {name} ({role}): it starts pending and receives nothing until approved',
  impact_server_approve: 'Approve server {name}: it becomes active and may receive deployments',
  impact_server_maintenance_on: 'Put {name} into maintenance: no new deployments while someone works on it',
  impact_server_maintenance_off: 'Bring {name} back from maintenance to active',
  impact_server_agent_token: 'Issue a new agent token for {name}: a previous token stops working',
  impact_server_isolate: 'Isolate server {name}: no deployments, its agent is refused',
  impact_server_delete: 'Delete server {name}: its agent token is revoked; its history stays',
  impact_release_register: 'Register {module}@{version}: it deploys only after approval',
  impact_release_approve: 'Approve {module}@{version}: it may then be deployed to any active server',
  impact_deploy_request: 'Deploy {module}@{version} to {server}',
  impact_deploy_rollback: 'Roll {module} on {server} back to its previous version',
  impact_deploy_reconcile_server:
    'Bring {server} to its desired versions (deploys or rolls back modules that differ)',
  impact_deploy_reconcile_all:
    'Bring every active server to its desired versions (deploys or rolls back modules that differ)',
  impact_module_health: 'Check the health of {module} on {server} (a module_health job; nothing changes)',
  impact_job_cancel:
    'Cancel job {id} ({type}, {state}): it stops at its next step boundary and ends cancelled',
  impact_job_retry: 'Retry job {id} ({type}, {state}): a new job linked to it runs the same work again',
  impact_job_resume: 'Resume job {id} ({type}, {state}): it continues after its last finished step',
  impact_job_stop: 'Stop job {id} ({type}, {state}): it pauses between steps until resumed',
  impact_job_revert: 'Revert deploy {module}@{version} on {server}: a rollback job to its previous version',
  impact_incident_open: 'Open a {severity} incident {key}: {title}',
  impact_incident_resolve: 'Resolve incident {id}',
  impact_dr_snapshot:
    'Take a DR snapshot now: an online backup of HAL’s database, verified with integrity_check',
  impact_settings_set_global: 'Set {key} (global)',
  impact_settings_set_server: 'Set {key} on server {server}',
  impact_secret_set: 'Set the confidential value {key}',
  impact_secret_set_server: 'Set the confidential value {key} on server {server}',
  impact_secret_unset: 'Remove the confidential value {key}',
  impact_secret_unset_server: 'Remove the confidential value {key} on server {server}',
  impact_settings_apply_server: 'Apply the effective settings to {server}',
  impact_settings_apply_all: 'Apply settings to HAL and every active server',
  impact_field_state: 'state',
  impact_field_name: 'name',
  impact_field_role: 'role',
  impact_field_id: 'id',
  impact_field_server: 'server',
  impact_field_serverId: 'server id',
  impact_field_release: 'release',
  impact_field_module: 'module',
  impact_field_version: 'version',
  impact_field_actualVersion: 'current version',
  impact_field_sha256: 'SHA-256',
  impact_field_size: 'size (bytes)',
  impact_field_deployments: 'deployed modules',
  impact_field_differences: 'differing versions',
  impact_field_job: 'job',
  impact_field_type: 'type',
  impact_field_finishedAt: 'finished at',
  impact_field_incident: 'incident',
  impact_field_key: 'key',
  impact_field_title: 'title',
  impact_field_severity: 'severity',
  impact_field_resolution: 'resolution',
  impact_field_reason: 'reason',
  impact_field_snapshots: 'snapshots',
  impact_field_count: 'count',
  impact_field_lastAgeS: 'since the last snapshot (s)',
  impact_field_lastVerified: 'last verification',
  impact_field_values: 'values to apply',
  impact_field_fromSource: 'current value from',
  impact_field_note: 'note',
  impact_field_value: 'value',
  impact_value_all_servers: 'all active servers',
  impact_value_previous_version: 'the previous version',
  impact_value_setting_fallback: 'null removes the stored value: the key falls back',
  impact_value_yes: 'yes',
  impact_value_no: 'no',
  impact_ui_title: 'What changes',
  impact_ui_changes: 'Changes',
  impact_ui_facts: 'Targets',
  impact_ui_raw: 'raw JSON',
  impact_ui_loading: 'Computing the impact…',
  impact_ui_failed: 'What this changes (the impact) could not be loaded.',
  impact_ui_retry: 'Load again',
  impact_ui_approve_held: 'Approval waits until the impact can be checked.',
} as const satisfies Record<keyof typeof ko, string>;

/** A catalogue key of an impact's summary sentence (what an operation answers as `summaryCode`). */
export type ImpactSummaryCode = Exclude<
  keyof typeof ko,
  `impact_field_${string}` | `impact_value_${string}` | `impact_ui_${string}`
>;

/** The impact namespace of the console's messages, one table per language (merged into `messages-console.ts`). */
export const CONSOLE_IMPACT_MESSAGES = { ko, en } as const;
