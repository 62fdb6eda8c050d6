/**
 * The console's success notices (`notice_<code>`): the green line a page shows after a console action. An action
 * answers with a code and values (`?notice=<code>&notice.<name>=…`, signed by the server), never with text, so
 * each reader sees the notice in their own language. A placeholder named `{state}` takes a state's word
 * (`state_<value>`) where the catalogue has one. `messages-console.ts` merges these tables.
 */
const ko = {
  notice_server_registered: '{name} 서버를 등록했습니다(승인 대기 중).',
  notice_server_approved: '{name} 서버를 승인했습니다.',
  notice_server_maintenance: '{name} 서버의 상태: {state}',
  notice_server_isolated: '{name} 서버를 격리했습니다.',
  notice_server_deleted: '{name} 서버를 삭제했습니다.',
  notice_release_registered: '{module}@{version} 릴리스를 등록했습니다.',
  notice_release_approved: '{module}@{version} 릴리스를 승인했습니다.',
  notice_deploy_queued: '배포 작업 {id}을(를) 대기열에 넣었습니다.',
  notice_rollback_queued: '롤백 작업 {id}을(를) 대기열에 넣었습니다.',
  notice_reconcile_queued: '조정 작업 {id}을(를) 대기열에 넣었습니다.',
  notice_job_cancel: '작업 {id} 취소: 현재 상태 {state}',
  notice_job_retry: '작업 {id} 재시도: 현재 상태 {state}',
  notice_job_resume: '작업 {id} 재개: 현재 상태 {state}',
  notice_job_stop: '작업 {id} 일시 중지: 현재 상태 {state}',
  notice_revert_queued: '되돌리기 작업 {id}을(를) 대기열에 넣었습니다.',
  notice_incident_opened: '{key} 장애를 열었습니다.',
  notice_incident_resolved: '{key} 장애를 해결 처리했습니다.',
  notice_dr_snapshot: '재해 복구 스냅샷을 기록했습니다.',
  notice_setting_set: '{key} 설정을 저장했습니다.',
  notice_secret_set: '{key} 비밀 값을 설정했습니다.',
  notice_secret_unset: '{key} 비밀 값을 지웠습니다.',
  notice_settings_apply_queued: '설정 적용 작업 {id}을(를) 대기열에 넣었습니다.',
} as const satisfies Record<`notice_${string}`, string>;

const en = {
  notice_server_registered: 'Registered {name} (pending approval)',
  notice_server_approved: 'Approved {name}',
  notice_server_maintenance: '{name} is {state}',
  notice_server_isolated: 'Isolated {name}',
  notice_server_deleted: 'Deleted {name}',
  notice_release_registered: 'Registered {module}@{version}',
  notice_release_approved: 'Approved {module}@{version}',
  notice_deploy_queued: 'Deploy job {id} queued',
  notice_rollback_queued: 'Rollback job {id} queued',
  notice_reconcile_queued: 'Reconcile job {id} queued',
  notice_job_cancel: 'Cancel: job {id} is {state}',
  notice_job_retry: 'Retry: job {id} is {state}',
  notice_job_resume: 'Resume: job {id} is {state}',
  notice_job_stop: 'Stop: job {id} is {state}',
  notice_revert_queued: 'Revert job {id} queued',
  notice_incident_opened: 'Opened {key}',
  notice_incident_resolved: 'Resolved {key}',
  notice_dr_snapshot: 'DR snapshot written',
  notice_setting_set: 'Set {key}',
  notice_secret_set: '{key} is set',
  notice_secret_unset: '{key} is not set',
  notice_settings_apply_queued: 'Settings apply job {id} queued',
} as const satisfies Record<keyof typeof ko, string>;

/** A success notice's code: what a console action answers instead of text (`notice_<code>` in the catalogue). */
export type NoticeCode = keyof typeof ko extends `notice_${infer Code}` ? Code : never;

/** The console's success notices, one table per language (merged into the console's namespace). */
export const CONSOLE_NOTICE_MESSAGES = { ko, en } as const;
