#!/bin/sh
# Switchyard client installer, served by the gateway at /install/ (docs/installers.md).
#
#   curl -fsSL <gateway>/install/<client>.sh -o install.sh && sh install.sh
#
# The token is asked for interactively (hidden) when a terminal is attached; without one the
# first line of standard input is read. It is never taken from the URL or the command line
# (docs/api.md), never passed to another program's arguments, and never printed.
# Written for POSIX sh (dash, busybox ash, bash, zsh); `printf` and `read` are shell builtins
# there, which is what keeps the token out of every process's argument list.
set -u
umask 077

base_url='@@SWITCHYARD_BASE_URL@@'
work_dir=''
echo_off=0
token=''
model=''
backup_path=''

info() {
  printf '%s\n' "$*"
}

fail() {
  printf 'switchyard: %s\n' "$*" >&2
  exit 1
}

cleanup() {
  if [ "$echo_off" = 1 ]; then
    stty echo </dev/tty 2>/dev/null
    echo_off=0
  fi
  if [ -n "$work_dir" ]; then
    rm -rf "$work_dir"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# True when a terminal can be opened: prompts go there and answers come from there, so the
# script also works when it was piped into sh.
has_terminal() {
  (: </dev/tty) 2>/dev/null
}

make_work_dir() {
  work_dir=$(mktemp -d 2>/dev/null) || work_dir=''
  if [ -z "$work_dir" ]; then
    work_dir="${TMPDIR:-/tmp}/switchyard-install.$$"
    mkdir "$work_dir" || fail "Cannot create a temporary directory ($work_dir)."
  fi
  chmod 700 "$work_dir"
}

read_token() {
  token=''
  if has_terminal; then
    printf 'Switchyard token (input hidden): ' >/dev/tty
    if stty -echo </dev/tty 2>/dev/null; then
      echo_off=1
    fi
    IFS= read -r token </dev/tty || token=''
    if [ "$echo_off" = 1 ]; then
      stty echo </dev/tty 2>/dev/null
      echo_off=0
    fi
    printf '\n' >/dev/tty
  else
    IFS= read -r token || [ -n "$token" ] || token=''
  fi
  # Trim surrounding white space (a pasted token often ends in a newline or CR).
  token=${token#"${token%%[![:space:]]*}"}
  token=${token%"${token##*[![:space:]]}"}
  case $token in
    '') fail 'No token was entered (without a terminal it is read from the first line of standard input).' ;;
    sy_*) ;;
    *) fail 'That is not a Switchyard client token (they start with "sy_"). Provider keys are not accepted.' ;;
  esac
  # The token is written into JSON, TOML and an HTTP header: only its own alphabet may pass.
  case ${token#sy_} in
    *[!0-9A-Za-z]*) fail 'The token contains characters a Switchyard token never has.' ;;
  esac
}

# GET {base}/v1/models with the token in a header read from standard input (curl) or from a
# private config file (GNU wget), so it never appears in a process list.
fetch_models() {
  models_file="$work_dir/models.json"
  if command -v curl >/dev/null 2>&1; then
    http_status=$(printf 'Authorization: Bearer %s\n' "$token" |
      curl -sS -H @- -H 'Accept: application/json' -o "$models_file" -w '%{http_code}' \
        "$base_url/v1/models") || fail "Cannot reach $base_url (curl failed)."
  elif command -v wget >/dev/null 2>&1 && wget --help 2>&1 | grep -q -- '--config'; then
    printf 'header = Authorization: Bearer %s\n' "$token" >"$work_dir/wgetrc"
    wget --config="$work_dir/wgetrc" --content-on-error -q -S -O "$models_file" \
      "$base_url/v1/models" 2>"$work_dir/wget.log"
    http_status=$(sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*$/\1/p' "$work_dir/wget.log" | tail -n 1)
    rm -f "$work_dir/wgetrc"
    [ -n "$http_status" ] || fail "Cannot reach $base_url (wget failed)."
  else
    fail 'Neither curl nor GNU wget was found. Install curl and run this script again.'
  fi
}

verify_token() {
  fetch_models
  case $http_status in
    200) ;;
    401) fail "The gateway refused this token (HTTP 401): it is wrong, disabled or expired. Nothing was changed." ;;
    *)
      # The error message, with escaped quotes shown as single quotes.
      message=$(sed -n -e "s/\\\\\"/'/g" -e 's/.*"message" *: *"\([^"]*\)".*/\1/p' "$models_file" 2>/dev/null | head -n 1)
      fail "The gateway answered HTTP $http_status to GET $base_url/v1/models${message:+: $message}. Nothing was changed."
      ;;
  esac
}

# Model ids from the model list, one per line. Only characters that are safe to write into the
# client configuration are accepted; any other id is skipped.
list_model_ids() {
  tr ',{}[]' '\n\n\n\n\n' <"$models_file" |
    sed -n 's/^[[:space:]]*"id"[[:space:]]*:[[:space:]]*"\([A-Za-z0-9._:@+\/-]*\)"[[:space:]]*$/\1/p'
}

# Sets $model: SWITCHYARD_MODEL when given (it must be listed), otherwise a choice from the list
# when a terminal is attached, otherwise the first listed model.
choose_model() {
  ids_file="$work_dir/model-ids"
  list_model_ids >"$ids_file"
  count=$(grep -c . "$ids_file")
  model=''
  if [ -n "${SWITCHYARD_MODEL:-}" ]; then
    grep -Fqx -- "$SWITCHYARD_MODEL" "$ids_file" ||
      fail "The model \"$SWITCHYARD_MODEL\" is not in the gateway's model list. Nothing was changed."
    model=$SWITCHYARD_MODEL
    return 0
  fi
  if [ "$count" -eq 0 ]; then
    info 'The gateway lists no models yet; the model is left unset.'
    return 0
  fi
  model=$(sed -n 1p "$ids_file")
  if [ "$count" -gt 1 ] && has_terminal; then
    printf 'Models on this gateway:\n' >/dev/tty
    awk '{ printf "  %d) %s\n", NR, $0 }' "$ids_file" >/dev/tty
    printf 'Model number [1]: ' >/dev/tty
    choice=''
    IFS= read -r choice </dev/tty || choice=''
    case $choice in
      '') ;;
      *[!0-9]*) fail "\"$choice\" is not a model number." ;;
      *)
        [ "$choice" -ge 1 ] && [ "$choice" -le "$count" ] || fail "There is no model number $choice."
        model=$(sed -n "${choice}p" "$ids_file")
        ;;
    esac
  fi
}

# Copies an existing file aside (mode 600: it may hold an earlier token); sets $backup_path.
backup_file() {
  backup_path=''
  [ -e "$1" ] || return 0
  backup_path="$1.switchyard-backup-$(date +%Y%m%d-%H%M%S)"
  if [ -e "$backup_path" ]; then
    backup_path="$backup_path-$$"
  fi
  cp -p "$1" "$backup_path" || fail "Cannot back up $1."
  chmod 600 "$backup_path"
}

# Moves a finished temporary file over the target in one step, private to the user.
install_private_file() {
  chmod 600 "$1" && mv -f "$1" "$2" || fail "Cannot write $2."
}

# The first of node and python3 that runs, used to merge JSON without losing keys; empty when
# neither is usable (then an existing file is backed up and replaced).
find_json_tool() {
  if command -v node >/dev/null 2>&1 && node -e '' >/dev/null 2>&1; then
    echo node
  elif command -v python3 >/dev/null 2>&1 && python3 -c 'import json' >/dev/null 2>&1; then
    echo python3
  fi
}

report_written() {
  info "  wrote   $1 (mode 600)"
  if [ -n "$backup_path" ]; then
    info "  backup  $backup_path"
  fi
}
