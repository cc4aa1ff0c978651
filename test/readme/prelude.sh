# Sourced before the README's examples (test/readme/readme.test.ts): curl records each HTTP status it receives with the
# README line of the command under way, and __readme_check fails the run at the first command that exited non-zero or
# answered a status the README does not say (its trailing comment's, else any 2xx).
set -o pipefail
curl() {
  local headers status code stream=
  headers=$(mktemp)
  for argument; do case $argument in -N|-*N|-N*|--no-buffer) stream=1;; esac; done
  if [ -n "$stream" ]; then command curl --max-time 3 -D "$headers" "$@"; else command curl -D "$headers" "$@"; fi
  code=$?
  status=$(awk '/^HTTP\//{s=$2} END{print s}' "$headers"); rm -f "$headers"
  echo "$__readme_line ${status:-000}" >> "$__readme_statuses"
  if [ -n "$stream" ] && [ "$code" -eq 28 ] && [ -n "$status" ]; then return 0; fi
  return "$code"
}
__readme_check() {
  local code=$1 allowed=$2 line status
  if [ "$code" -ne 0 ]; then echo "README line $__readme_line: exited $code" >&2; exit 90; fi
  while read -r line status; do
    [ "$line" = "$__readme_line" ] || continue
    if [ -z "$allowed" ]; then
      case $status in 2??) ;; *) echo "README line $__readme_line: answered $status, the README says 2xx" >&2; exit 91;; esac
    else
      case " $allowed " in *" $status "*) ;; *) echo "README line $__readme_line: answered $status, the README says $allowed" >&2; exit 91;; esac
    fi
  done < "$__readme_statuses"
}
