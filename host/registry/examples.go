package registry

// Example is a complete definition `hook-exec hook examples` prints.
type Example struct {
	Name, About string
	Document    string
}

// Examples are copyable definitions: save one as hook.json, then
// `hook-exec hook validate hook.json` and `hook-exec hook add hook.json`.
var Examples = []Example{
	{"forbidden-paths", "Deny writes to credential and VCS-internal paths (.env, .git, .ssh, credentials, private-key).", `{
  "schema_version": 1,
  "id": "protect-sensitive-paths",
  "name": "Protect sensitive paths",
  "description": "Deny writes to credential and VCS-internal paths.",
  "point": "file.before_write",
  "scope": "global",
  "scope_key": null,
  "enabled": true,
  "mode": "blocking",
  "order": 10,
  "timeout_seconds": 10,
  "max_output_bytes": 65536,
  "max_concurrency": 1,
  "failure_policy": "deny",
  "filters": {},
  "handler": {
    "kind": "builtin",
    "builtin": "forbidden-path"
  }
}`},
	{"proposed-secret", "Ask for approval when a write or a command would carry a secret.", `{
  "schema_version": 1,
  "id": "proposed-secret-approval",
  "name": "Approve proposed secrets",
  "description": "Ask before a secret is written to a file.",
  "point": "file.before_write",
  "scope": "global",
  "scope_key": null,
  "enabled": true,
  "mode": "blocking",
  "order": 20,
  "timeout_seconds": 10,
  "max_output_bytes": 65536,
  "max_concurrency": 1,
  "failure_policy": "deny",
  "filters": {},
  "handler": {
    "kind": "builtin",
    "builtin": "secret-scan",
    "options": {"action": "request_approval"}
  }
}`},
	{"formatter", "After a write, strip the written file's trailing whitespace (a command hook in the sandbox with the workspace read-write, as its owner; observational).", `{
  "schema_version": 1,
  "id": "whitespace-fix",
  "name": "Trailing whitespace fix",
  "description": "Strip trailing whitespace from written files.",
  "point": "file.after_write",
  "scope": "global",
  "scope_key": null,
  "enabled": true,
  "mode": "observational",
  "order": 50,
  "timeout_seconds": 20,
  "max_output_bytes": 65536,
  "max_concurrency": 2,
  "failure_policy": "warn",
  "filters": {"categories": ["fs.write"]},
  "workspace_access": "read-write",
  "handler": {
    "kind": "command",
    "command": ["sh", "-c", "ev=$(cat); f=$(printf '%s' \"$ev\" | sed -n 's/.*\"path\":\"\\([^\"]*\\)\".*/\\1/p'); ws=$(printf '%s' \"$ev\" | sed -n 's/.*\"workspace\":\"\\([^\"]*\\)\".*/\\1/p'); case \"$f\" in /*) ;; *) f=\"$ws/$f\" ;; esac; n=0; if [ -f \"$f\" ] && [ ! -L \"$f\" ]; then n=$(grep -c '[[:space:]]$' \"$f\"); [ \"$n\" -eq 0 ] || sed -i 's/[[:space:]]*$//' \"$f\"; fi; printf '{\"schema_version\":1,\"action\":\"allow\",\"output\":{\"lines_fixed\":%d}}\\n' \"$n\""]
  }
}`},
	{"test-on-completion", "When a run completes, run the workspace's ./check.sh, if it has one (a command hook in the sandbox; observational).", `{
  "schema_version": 1,
  "id": "test-on-completion",
  "name": "Tests on completion",
  "description": "Run the workspace's checks when a run completes.",
  "point": "run.completed",
  "scope": "global",
  "scope_key": null,
  "enabled": true,
  "mode": "observational",
  "order": 50,
  "timeout_seconds": 120,
  "max_output_bytes": 65536,
  "max_concurrency": 1,
  "failure_policy": "warn",
  "filters": {},
  "handler": {
    "kind": "command",
    "command": ["sh", "-c", "ev=$(cat); ws=$(printf '%s' \"$ev\" | sed -n 's/.*\"workspace\":\"\\([^\"]*\\)\".*/\\1/p'); if [ -x \"$ws/check.sh\" ]; then (cd \"$ws\" && ./check.sh) >&2 || exit 1; fi; echo '{\"schema_version\":1,\"action\":\"allow\"}'"]
  }
}`},
	{"notification", "When an approval is requested, say so on the error output (a builtin; observational).", `{
  "schema_version": 1,
  "id": "approval-notification",
  "name": "Approval notification",
  "description": "Tell the owner an approval is waiting.",
  "point": "approval.requested",
  "scope": "global",
  "scope_key": null,
  "enabled": true,
  "mode": "observational",
  "order": 90,
  "timeout_seconds": 10,
  "max_output_bytes": 65536,
  "max_concurrency": 4,
  "failure_policy": "continue",
  "filters": {},
  "handler": {
    "kind": "builtin",
    "builtin": "notification",
    "options": {"message": "approval requested in session {{.session_id}} for {{.data.tool_name}}", "to": "stderr"}
  }
}`},
}
