
# --- Codex CLI ---------------------------------------------------------------------------------
# Codex reads $CODEX_HOME/config.toml (default ~/.codex). The gateway becomes the provider
# "switchyard"; the token is its `experimental_bearer_token`, which Codex sends as
# `Authorization: Bearer` without needing an environment variable (docs/installers.md).

# The existing configuration without what this installer owns: the root keys `model` and
# `model_provider` (they must precede every table) and the [model_providers.switchyard] table.
strip_owned_toml() {
  awk '
    BEGIN { root = 1; skip = 0; blanks = 0 }
    {
      line = $0
      if (line ~ /^[ \t]*\[/) {
        root = 0
        name = line
        sub(/^[ \t]*\[\[?[ \t]*/, "", name)
        sub(/[ \t]*\]\]?[ \t]*(#.*)?$/, "", name)
        gsub(/["\047]/, "", name)
        gsub(/[ \t]*\.[ \t]*/, ".", name)
        skip = (name == "model_providers.switchyard" || index(name, "model_providers.switchyard.") == 1)
      }
      if (skip) next
      if (root && line ~ /^[ \t]*["\047]?(model|model_provider)["\047]?[ \t]*=/) next
      if (line ~ /^[ \t]*$/) { blanks++; next }
      while (blanks > 0) { print ""; blanks-- }
      print line
    }
  ' "$1"
}

configure_codex() {
  codex_home=${CODEX_HOME:-$HOME/.codex}
  config="$codex_home/config.toml"
  mkdir -p "$codex_home" || fail "Cannot create $codex_home."
  temporary="$config.switchyard-tmp.$$"
  rm -f "$temporary"
  {
    printf 'model_provider = "switchyard"\n'
    if [ -n "$model" ]; then
      printf 'model = "%s"\n' "$model"
    fi
    if [ -f "$config" ]; then
      strip_owned_toml "$config" || fail "Cannot read $config."
    fi
    printf '\n[model_providers.switchyard]\n'
    printf 'name = "Switchyard"\n'
    printf 'base_url = "%s/v1"\n' "$base_url"
    printf 'wire_api = "responses"\n'
    printf 'experimental_bearer_token = "%s"\n' "$token"
  } >"$temporary" || {
    rm -f "$temporary"
    fail "Cannot write $config."
  }
  backup_file "$config"
  install_private_file "$temporary" "$config"

  info "Codex now uses the Switchyard gateway at $base_url/v1${model:+ with model $model}."
  report_written "$config"
  if [ -z "$model" ]; then
    info '  No model was set: add model = "<id from GET /v1/models>" to the file.'
  fi
  info 'Start it with: codex'
}

main() {
  make_work_dir
  info "Switchyard installer for Codex (gateway: $base_url)"
  read_token
  verify_token
  choose_model
  configure_codex
}

main "$@"
